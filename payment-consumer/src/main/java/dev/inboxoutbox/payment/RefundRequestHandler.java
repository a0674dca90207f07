package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import dev.inboxoutbox.payment.PaymentTransitions.Verdict;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code RefundRequested} -> {@code POST /v1/refunds} with the payment's refund key, then the
 * provider's refund id is recorded; the refund's webhook ends the payment as {@code REFUNDED}.
 *
 * <p>As for the charge, the HTTP call cannot join the transaction and may run more than once for
 * one payment; the key {@code refund-<paymentId>} makes every repeat the same refund at the
 * provider. An unavailable provider rolls the batch back for a later retry ({@link
 * ProviderUnavailableException}).
 */
final class RefundRequestHandler implements MessageHandler {

  static final String OPERATION = "payment-refunder";
  private static final int UPDATE_ATTEMPTS = 5;

  private final Payments payments;
  private final PaymentEvents events;
  private final ProviderClient provider;

  RefundRequestHandler(Payments payments, PaymentEvents events, ProviderClient provider) {
    this.payments = payments;
    this.events = events;
    this.provider = provider;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    String type = message.type().orElse("");
    if (!type.equals(PaymentEvents.REFUND_REQUESTED)) {
      throw PoisonMessageException.unknownType(type);
    }
    JsonNode payload = message.payload();
    String paymentId = Payloads.text(payload, "paymentId");
    String chargeId = Payloads.text(payload, "chargeId");
    long amountCents = Payloads.positiveCents(payload, "amountCents");
    String idempotencyKey = Payloads.text(payload, "idempotencyKey");
    if (!idempotencyKey.equals(PaymentEvents.refundIdempotencyKey(paymentId))) {
      throw PoisonMessageException.malformed(
          "idempotencyKey "
              + idempotencyKey
              + " is not the payment's refund key "
              + PaymentEvents.refundIdempotencyKey(paymentId));
    }
    Optional<Payment> found = payments.find(paymentId);
    if (found.isEmpty()) {
      return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
    }
    Payment payment = found.get();
    if (payment.amountCents() != amountCents
        || !payment.chargeId().map(chargeId::equals).orElse(false)) {
      return Outcome.rejected(events.outcome("error", "refund_mismatch", "paymentId", paymentId));
    }
    Decision decision = PaymentTransitions.onRefundRequested(payment);
    if (decision.verdict() == Verdict.REJECT) {
      return Outcome.rejected(
          events.outcome(
              "error",
              decision.reason(),
              "paymentId",
              paymentId,
              "status",
              payment.status().name()));
    }
    if (decision.verdict() == Verdict.ALREADY_APPLIED) {
      return settled(payment);
    }
    ProviderClient.Refund refund;
    try {
      refund = provider.refund(idempotencyKey, chargeId, amountCents);
    } catch (ProviderRefusedException refused) {
      // 422: the key is held for other parameters; 404/400: no such charge or nothing to refund.
      // Either way a person has to look.
      DeadLetterReason reason =
          refused.status() == 422 ? DeadLetterReason.CONFLICT : DeadLetterReason.HANDLER_ERROR;
      throw new PoisonMessageException(reason, refused.getMessage());
    }
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      if (payments.recordRefund(payment, PaymentStatus.REFUND_REQUESTED, refund.refundId())) {
        return Outcome.success(
            events.outcome(
                "paymentId",
                paymentId,
                "refundId",
                refund.refundId(),
                "status",
                PaymentStatus.REFUND_REQUESTED.name()));
      }
      payment = payments.find(paymentId).orElseThrow();
      if (PaymentTransitions.onRefundRequested(payment).verdict() != Verdict.APPLY) {
        // The refund's webhook overtook this handler and settled the payment.
        return settled(payment);
      }
    }
    throw new SQLTransactionRollbackException(
        "payment " + paymentId + " kept changing while recording its refund", "40001");
  }

  private Outcome settled(Payment payment) {
    return Outcome.success(
        events.outcome(
            "paymentId",
            payment.paymentId(),
            "refundId",
            payment.refundId().orElse(null),
            "status",
            payment.status().name()));
  }
}
