package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Verdict;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code ChargeRequested} -> {@code POST /v1/charges} with the payment's idempotency key, then the
 * payment is {@code CHARGE_REQUESTED} with the provider's charge id.
 *
 * <p>The HTTP call cannot join the database transaction, so it may run more than once for one
 * payment (a rolled-back batch, a crash before the commit, a redelivery). That is safe because the
 * key is {@code charge-<paymentId>}: the provider answers every repeat with the charge it already
 * made. A provider that stays unavailable makes the batch roll back and come back later ({@link
 * ProviderUnavailableException}); nothing is dead-lettered for an outage.
 */
final class ChargeRequestHandler implements MessageHandler {

  static final String OPERATION = "payment-charger";
  private static final int UPDATE_ATTEMPTS = 5;

  private final Payments payments;
  private final PaymentEvents events;
  private final ProviderClient provider;

  ChargeRequestHandler(Payments payments, PaymentEvents events, ProviderClient provider) {
    this.payments = payments;
    this.events = events;
    this.provider = provider;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    String type = message.type().orElse("");
    if (!type.equals(PaymentEvents.CHARGE_REQUESTED)) {
      throw PoisonMessageException.unknownType(type);
    }
    JsonNode payload = message.payload();
    String paymentId = Payloads.text(payload, "paymentId");
    long amountCents = Payloads.positiveCents(payload, "amountCents");
    String currency = Payloads.currency(payload, "currency");
    String idempotencyKey = Payloads.text(payload, "idempotencyKey");
    if (!idempotencyKey.equals(PaymentEvents.chargeIdempotencyKey(paymentId))) {
      throw PoisonMessageException.malformed(
          "idempotencyKey "
              + idempotencyKey
              + " is not the payment's key "
              + PaymentEvents.chargeIdempotencyKey(paymentId));
    }
    Optional<Payment> found = payments.find(paymentId);
    if (found.isEmpty()) {
      return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
    }
    Payment payment = found.get();
    if (payment.amountCents() != amountCents || !payment.currency().equals(currency)) {
      return Outcome.rejected(events.outcome("error", "amount_mismatch", "paymentId", paymentId));
    }
    if (PaymentTransitions.onChargeRequested(payment).verdict() != Verdict.APPLY) {
      return settled(payment);
    }
    ProviderClient.Charge charge;
    try {
      charge = provider.charge(idempotencyKey, paymentId, amountCents, currency);
    } catch (ProviderRefusedException refused) {
      // 422 means the provider holds this key for other parameters: a person has to look.
      DeadLetterReason reason =
          refused.status() == 422 ? DeadLetterReason.CONFLICT : DeadLetterReason.HANDLER_ERROR;
      throw new PoisonMessageException(reason, refused.getMessage());
    }
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      if (payments.update(payment, PaymentStatus.CHARGE_REQUESTED, charge.chargeId(), null)) {
        return Outcome.success(
            events.outcome(
                "paymentId",
                paymentId,
                "chargeId",
                charge.chargeId(),
                "status",
                PaymentStatus.CHARGE_REQUESTED.name()));
      }
      payment = payments.find(paymentId).orElseThrow();
      if (PaymentTransitions.onChargeRequested(payment).verdict() != Verdict.APPLY) {
        // The webhook overtook this handler and settled the payment with the same charge.
        return settled(payment);
      }
    }
    // A serialization failure (SQLSTATE 40001): the consumer runtime retries the batch later.
    throw new SQLTransactionRollbackException(
        "payment " + paymentId + " kept changing while recording its charge", "40001");
  }

  private Outcome settled(Payment payment) {
    return Outcome.success(
        events.outcome(
            "paymentId",
            payment.paymentId(),
            "chargeId",
            payment.chargeId().orElse(null),
            "status",
            payment.status().name()));
  }
}
