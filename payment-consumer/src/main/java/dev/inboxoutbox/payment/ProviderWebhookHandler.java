package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.ChargeResult;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import dev.inboxoutbox.payment.PaymentTransitions.RefundResult;
import dev.inboxoutbox.payment.PaymentTransitions.Verdict;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Verified provider webhooks -> the payment's final state and one {@code PaymentCaptured} or {@code
 * PaymentFailed}; for a cancelled order's payment a succeeded charge becomes a {@code
 * RefundRequested} instead, and {@code refund.succeeded} ends it as {@code REFUNDED}. The inbox key
 * is the provider's event id, so the at-least-once copies of one event apply once. Other events
 * about the same charge (late, out of order, contradictory) are judged by {@link
 * PaymentTransitions}; the version check on the update makes a race with the charger re-read and
 * judge again instead of overwriting.
 */
final class ProviderWebhookHandler implements MessageHandler {

  static final String OPERATION = "payment-webhooks";
  static final String CHARGE_SUCCEEDED = "charge.succeeded";
  static final String CHARGE_FAILED = "charge.failed";
  static final String REFUND_SUCCEEDED = "refund.succeeded";
  static final String FAILURE_REASON = "charge_failed";

  private static final Logger log = LoggerFactory.getLogger(ProviderWebhookHandler.class);
  private static final int UPDATE_ATTEMPTS = 5;

  private final Payments payments;
  private final PaymentEvents events;

  ProviderWebhookHandler(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    JsonNode event = message.payload();
    // The type header, or the payload's "type" field when a producer left the header out.
    String type = message.type().orElse("");
    if (type.equals(REFUND_SUCCEEDED)) {
      return refunded(message, event);
    }
    boolean succeeded;
    if (type.equals(CHARGE_SUCCEEDED)) {
      succeeded = true;
    } else if (type.equals(CHARGE_FAILED)) {
      succeeded = false;
    } else {
      throw PoisonMessageException.unknownType(type);
    }
    JsonNode data = Payloads.object(event, "data");
    String paymentId = Payloads.text(data, "paymentId");
    ChargeResult result =
        new ChargeResult(
            Payloads.text(data, "chargeId"),
            succeeded,
            Payloads.positiveCents(data, "amountCents"),
            Payloads.currency(data, "currency"));
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      Optional<Payment> found = payments.find(paymentId);
      if (found.isEmpty()) {
        return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
      }
      Payment payment = found.get();
      Decision decision = PaymentTransitions.onChargeResult(payment, result);
      if (decision.verdict() == Verdict.ALREADY_APPLIED) {
        return Outcome.success(
            events.outcome("paymentId", paymentId, "status", payment.status().name()));
      }
      if (decision.verdict() == Verdict.REJECT) {
        log.info(
            "webhook {} ({}) for payment {} rejected: {} (payment is {})",
            message.idempotencyKey().value(),
            type,
            paymentId,
            decision.reason(),
            payment.status());
        return Outcome.rejected(
            events.outcome(
                "error",
                decision.reason(),
                "paymentId",
                paymentId,
                "status",
                payment.status().name()));
      }
      String failureReason = succeeded ? null : FAILURE_REASON;
      if (payments.update(payment, decision.next(), result.chargeId(), failureReason)) {
        if (decision.next() == PaymentStatus.REFUND_REQUESTED) {
          // The order was cancelled while the charge was on its way: the money goes back, and the
          // order service, which cancelled the order, hears of no capture.
          context.emit(events.refundRequested(payment, result.chargeId()));
        } else {
          context.emit(
              succeeded
                  ? events.paymentCaptured(payment, result.chargeId())
                  : events.paymentFailed(payment, result.chargeId(), failureReason));
        }
        return Outcome.success(
            events.outcome(
                "paymentId",
                paymentId,
                "chargeId",
                result.chargeId(),
                "status",
                decision.next().name()));
      }
    }
    // A serialization failure (SQLSTATE 40001): the consumer runtime retries the batch later.
    throw new SQLTransactionRollbackException(
        "payment " + paymentId + " kept changing while applying " + type, "40001");
  }

  /** {@code refund.succeeded}: the refund of a cancelled order's charge is done. */
  private Outcome refunded(IncomingMessage message, JsonNode event) throws SQLException {
    JsonNode data = Payloads.object(event, "data");
    String paymentId = Payloads.text(data, "paymentId");
    RefundResult result =
        new RefundResult(
            Payloads.text(data, "refundId"),
            Payloads.text(data, "chargeId"),
            Payloads.positiveCents(data, "amountCents"),
            Payloads.currency(data, "currency"));
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      Optional<Payment> found = payments.find(paymentId);
      if (found.isEmpty()) {
        return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
      }
      Payment payment = found.get();
      Decision decision = PaymentTransitions.onRefundResult(payment, result);
      if (decision.verdict() == Verdict.ALREADY_APPLIED) {
        return Outcome.success(
            events.outcome("paymentId", paymentId, "status", payment.status().name()));
      }
      if (decision.verdict() == Verdict.REJECT) {
        log.warn(
            "webhook {} ({}) for payment {} rejected: {} (payment is {})",
            message.idempotencyKey().value(),
            REFUND_SUCCEEDED,
            paymentId,
            decision.reason(),
            payment.status());
        return Outcome.rejected(
            events.outcome(
                "error",
                decision.reason(),
                "paymentId",
                paymentId,
                "status",
                payment.status().name()));
      }
      if (payments.recordRefund(payment, decision.next(), result.refundId())) {
        return Outcome.success(
            events.outcome(
                "paymentId",
                paymentId,
                "refundId",
                result.refundId(),
                "status",
                decision.next().name()));
      }
    }
    throw new SQLTransactionRollbackException(
        "payment " + paymentId + " kept changing while applying " + REFUND_SUCCEEDED, "40001");
  }
}
