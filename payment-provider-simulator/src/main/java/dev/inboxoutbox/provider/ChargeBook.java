package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The simulated provider's state: one charge per idempotency key, the ledger verifiers read, and
 * the webhook that announces each new charge. Knows nothing of HTTP; {@link ChargesEndpoint} turns
 * its answers into responses.
 */
final class ChargeBook {

  /** What a charge request under a key came to. */
  sealed interface ChargeOutcome {}

  /** The key was new: a charge was made, written to the ledger and announced by a webhook. */
  record Created(byte[] response) implements ChargeOutcome {}

  /** The key was used before with the same parameters: the stored response, nothing new. */
  record Replayed(byte[] response) implements ChargeOutcome {}

  /** The key was used before with other parameters; nothing changes. */
  record KeyReused(ChargeRequest original) implements ChargeOutcome {}

  /** What a key was first used for, and the response it got. */
  private record StoredCharge(ChargeRequest request, LedgerEntry entry, byte[] response) {}

  private final ObjectMapper json;
  private final SeededDigest digest;
  private final double failureShare;
  private final WebhookDispatcher webhooks;
  private final ConcurrentHashMap<String, StoredCharge> chargesByKey = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, LedgerEntry> chargesById = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<LedgerEntry> ledger = new ConcurrentLinkedQueue<>();

  ChargeBook(ObjectMapper json, long seed, double failureShare, WebhookDispatcher webhooks) {
    this.json = json;
    this.digest = new SeededDigest(seed);
    this.failureShare = failureShare;
    this.webhooks = webhooks;
  }

  /**
   * Charges once per key: the key is claimed atomically, so concurrent requests with one key make
   * one charge, one ledger entry and one webhook event.
   */
  ChargeOutcome charge(String idempotencyKey, ChargeRequest request, TraceContext trace)
      throws JsonProcessingException {
    StoredCharge candidate = newCharge(idempotencyKey, request);
    StoredCharge stored = chargesByKey.putIfAbsent(idempotencyKey, candidate);
    if (stored == null) {
      chargesById.put(candidate.entry().chargeId(), candidate.entry());
      ledger.add(candidate.entry());
      webhooks.publish(webhookEvent(candidate.entry()), trace);
      return new Created(candidate.response());
    }
    if (stored.request().equals(request)) {
      return new Replayed(stored.response());
    }
    return new KeyReused(stored.request());
  }

  /** Decided by the seed, the key and the failure share alone, so verifiers can predict it. */
  ChargeStatus outcomeFor(String idempotencyKey) {
    return digest.fraction("outcome", idempotencyKey) < failureShare
        ? ChargeStatus.FAILED
        : ChargeStatus.SUCCEEDED;
  }

  /** The charge with this id, if one was made. */
  Optional<LedgerEntry> find(String chargeId) {
    return Optional.ofNullable(chargesById.get(chargeId));
  }

  /** Every charge made so far, in the order they were made. */
  List<LedgerEntry> ledger() {
    return List.copyOf(ledger);
  }

  private StoredCharge newCharge(String key, ChargeRequest request) throws JsonProcessingException {
    ChargeStatus status = outcomeFor(key);
    LedgerEntry entry =
        new LedgerEntry(
            "ch_" + digest.hex("charge", key).substring(0, 24),
            request.paymentId(),
            request.amountCents(),
            request.currency(),
            status,
            key,
            Instant.now());
    ObjectNode response = json.createObjectNode();
    response.put("chargeId", entry.chargeId());
    response.put("paymentId", entry.paymentId());
    response.put("amountCents", entry.amountCents());
    response.put("currency", entry.currency());
    response.put("status", status.wireName());
    return new StoredCharge(request, entry, json.writeValueAsBytes(response));
  }

  private WebhookEvent webhookEvent(LedgerEntry charge) throws JsonProcessingException {
    String type = charge.status().eventType();
    String id = "evt_" + digest.hex("event", charge.chargeId() + "/" + type).substring(0, 24);
    long created = charge.createdAt().getEpochSecond();
    ObjectNode event = json.createObjectNode();
    event.put("id", id);
    event.put("type", type);
    event.put("created", created);
    ObjectNode data = event.putObject("data");
    data.put("chargeId", charge.chargeId());
    data.put("paymentId", charge.paymentId());
    data.put("amountCents", charge.amountCents());
    data.put("currency", charge.currency());
    return new WebhookEvent(id, type, created, charge.paymentId(), json.writeValueAsString(event));
  }
}
