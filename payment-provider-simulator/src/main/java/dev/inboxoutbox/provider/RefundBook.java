package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulated provider's refunds: one refund per idempotency key, never more refunded than a
 * succeeded charge took, each announced by a {@code refund.succeeded} webhook. Knows nothing of
 * HTTP; {@link RefundsEndpoint} turns its answers into responses.
 */
final class RefundBook {

  /** What a refund request under a key came to. */
  sealed interface RefundOutcome {}

  /** The key was new: a refund was made, written to the ledger and announced by a webhook. */
  record Created(byte[] response) implements RefundOutcome {}

  /** The key was used before with the same parameters: the stored response, nothing new. */
  record Replayed(byte[] response) implements RefundOutcome {}

  /** The key was used before with other parameters; nothing changes. */
  record KeyReused(RefundRequest original) implements RefundOutcome {}

  /** No charge has this id. */
  record NoSuchCharge(String chargeId) implements RefundOutcome {}

  /** The charge failed: it took no money, so there is none to give back. */
  record ChargeFailed(String chargeId) implements RefundOutcome {}

  /** The refund would give back more than the charge took, counting earlier refunds. */
  record ExceedsCharge(LedgerEntry charge, long alreadyRefunded) implements RefundOutcome {}

  private record StoredRefund(RefundRequest request, byte[] response) {}

  private final ObjectMapper json;
  private final SeededDigest digest;
  private final ChargeBook charges;
  private final WebhookDispatcher webhooks;
  private final Map<String, StoredRefund> refundsByKey = new HashMap<>();
  private final Map<String, Long> refundedByCharge = new HashMap<>();
  private final List<RefundEntry> ledger = new ArrayList<>();

  RefundBook(ObjectMapper json, long seed, ChargeBook charges, WebhookDispatcher webhooks) {
    this.json = json;
    this.digest = new SeededDigest(seed);
    this.charges = charges;
    this.webhooks = webhooks;
  }

  /**
   * Refunds once per key. One lock for the whole decision: the key's claim and the charge's
   * remaining amount must be read and changed together, or two keys racing for one charge could
   * both pass the amount check.
   */
  synchronized RefundOutcome refund(
      String idempotencyKey, RefundRequest request, TraceContext trace)
      throws JsonProcessingException {
    StoredRefund stored = refundsByKey.get(idempotencyKey);
    if (stored != null) {
      return stored.request().equals(request)
          ? new Replayed(stored.response())
          : new KeyReused(stored.request());
    }
    Optional<LedgerEntry> found = charges.find(request.chargeId());
    if (found.isEmpty()) {
      return new NoSuchCharge(request.chargeId());
    }
    LedgerEntry charge = found.get();
    if (charge.status() != ChargeStatus.SUCCEEDED) {
      return new ChargeFailed(charge.chargeId());
    }
    long alreadyRefunded = refundedByCharge.getOrDefault(charge.chargeId(), 0L);
    if (alreadyRefunded + request.amountCents() > charge.amountCents()) {
      return new ExceedsCharge(charge, alreadyRefunded);
    }
    RefundEntry entry =
        new RefundEntry(
            "re_" + digest.hex("refund", idempotencyKey).substring(0, 24),
            charge.chargeId(),
            charge.paymentId(),
            request.amountCents(),
            charge.currency(),
            idempotencyKey,
            Instant.now());
    byte[] response = json.writeValueAsBytes(response(entry));
    refundsByKey.put(idempotencyKey, new StoredRefund(request, response));
    refundedByCharge.merge(charge.chargeId(), request.amountCents(), Long::sum);
    ledger.add(entry);
    webhooks.publish(webhookEvent(entry), trace);
    return new Created(response);
  }

  /** Every refund made so far, in the order they were made. */
  synchronized List<RefundEntry> ledger() {
    return List.copyOf(ledger);
  }

  private ObjectNode response(RefundEntry entry) {
    ObjectNode response = json.createObjectNode();
    response.put("refundId", entry.refundId());
    response.put("chargeId", entry.chargeId());
    response.put("paymentId", entry.paymentId());
    response.put("amountCents", entry.amountCents());
    response.put("currency", entry.currency());
    response.put("status", "succeeded");
    return response;
  }

  private WebhookEvent webhookEvent(RefundEntry refund) throws JsonProcessingException {
    String type = "refund.succeeded";
    String id = "evt_" + digest.hex("event", refund.refundId() + "/" + type).substring(0, 24);
    long created = refund.createdAt().getEpochSecond();
    ObjectNode event = json.createObjectNode();
    event.put("id", id);
    event.put("type", type);
    event.put("created", created);
    ObjectNode data = event.putObject("data");
    data.put("refundId", refund.refundId());
    data.put("chargeId", refund.chargeId());
    data.put("paymentId", refund.paymentId());
    data.put("amountCents", refund.amountCents());
    data.put("currency", refund.currency());
    return new WebhookEvent(id, type, created, refund.paymentId(), json.writeValueAsString(event));
  }
}
