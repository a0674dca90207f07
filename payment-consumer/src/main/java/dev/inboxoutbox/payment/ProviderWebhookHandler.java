package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.payment.PaymentTransitions.ChargeResult;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import dev.inboxoutbox.payment.PaymentTransitions.RefundResult;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import tools.jackson.databind.JsonNode;

/**
 * Verified provider webhooks -> the payment's final state and one {@code PaymentCaptured} or {@code
 * PaymentFailed}; for a cancelled order's payment a succeeded charge becomes a {@code
 * RefundRequested} instead, and {@code refund.succeeded} ends it as {@code REFUNDED}. {@link
 * WebhookReceiver} runs it once per provider event id, inside the transaction that claims the id in
 * the inbox, so the at-least-once copies of one event apply once. Other events about the same
 * charge (late, out of order, contradictory) are judged by {@link PaymentTransitions}; the version
 * check on the update makes a race with the charger re-read and judge again instead of overwriting.
 */
final class ProviderWebhookHandler {

  static final String OPERATION = "payment-webhooks";
  static final String CHARGE_SUCCEEDED = "charge.succeeded";
  static final String CHARGE_FAILED = "charge.failed";
  static final String REFUND_SUCCEEDED = "refund.succeeded";
  static final String FAILURE_REASON = "charge_failed";

  private static final Logger log = LoggerFactory.getLogger(ProviderWebhookHandler.class);

  private final Payments payments;
  private final PaymentEvents events;
  private final PaymentUpdates updates;

  ProviderWebhookHandler(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
    this.updates = new PaymentUpdates(payments);
  }

  /**
   * Applies one verified event of type {@code type}; {@code emit} appends to the outbox in the
   * caller's transaction.
   *
   * @throws PoisonMessageException when the event can never be applied (unknown type, a field
   *     missing)
   */
  Outcome handle(String eventId, String type, JsonNode event, Consumer<OutboxEvent> emit)
      throws SQLException {
    if (type.equals(REFUND_SUCCEEDED)) {
      return refunded(eventId, event);
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
    String failureReason = succeeded ? null : FAILURE_REASON;
    return apply(
        paymentId,
        new WebhookChange(eventId, type, Level.INFO) {
          @Override
          public Decision decide(Payment payment) {
            return PaymentTransitions.onChargeResult(payment, result);
          }

          @Override
          public Optional<Outcome> write(Payment read, PaymentStatus next) {
            if (!payments.update(read, next, result.chargeId(), failureReason)) {
              return Optional.empty();
            }
            if (next == PaymentStatus.REFUND_REQUESTED) {
              // The order was cancelled while the charge was on its way: the money goes back, and
              // the order service, which cancelled the order, hears of no capture.
              emit.accept(events.refundRequested(read, result.chargeId()));
            } else {
              emit.accept(
                  succeeded
                      ? events.paymentCaptured(read, result.chargeId())
                      : events.paymentFailed(read, result.chargeId(), failureReason));
            }
            return Optional.of(Outcome.success());
          }
        });
  }

  /** {@code refund.succeeded}: the refund of a cancelled order's charge is done. */
  private Outcome refunded(String eventId, JsonNode event) throws SQLException {
    JsonNode data = Payloads.object(event, "data");
    String paymentId = Payloads.text(data, "paymentId");
    RefundResult result =
        new RefundResult(
            Payloads.text(data, "refundId"),
            Payloads.text(data, "chargeId"),
            Payloads.positiveCents(data, "amountCents"),
            Payloads.currency(data, "currency"));
    return apply(
        paymentId,
        new WebhookChange(eventId, REFUND_SUCCEEDED, Level.WARN) {
          @Override
          public Decision decide(Payment payment) {
            return PaymentTransitions.onRefundResult(payment, result);
          }

          @Override
          public Optional<Outcome> write(Payment read, PaymentStatus next) {
            if (!payments.recordRefund(read, next, result.refundId())) {
              return Optional.empty();
            }
            return Optional.of(Outcome.success());
          }
        });
  }

  private Outcome apply(String paymentId, WebhookChange change) throws SQLException {
    Optional<Payment> found = payments.find(paymentId);
    if (found.isEmpty()) {
      return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
    }
    return updates.apply(found.get(), change, "applying " + change.type);
  }

  /** What a webhook's result does with a payment it is already applied to, or contradicts. */
  private abstract class WebhookChange implements PaymentUpdates.Change {

    private final String eventId;
    private final String type;
    private final Level rejectionLevel;

    WebhookChange(String eventId, String type, Level rejectionLevel) {
      this.eventId = eventId;
      this.type = type;
      this.rejectionLevel = rejectionLevel;
    }

    @Override
    public Outcome alreadyApplied(Payment payment) {
      return Outcome.success();
    }

    @Override
    public Outcome rejected(Payment payment, String reason) {
      log.atLevel(rejectionLevel)
          .log(
              "webhook {} ({}) for payment {} rejected: {} (payment is {})",
              eventId,
              type,
              payment.paymentId(),
              reason,
              payment.status());
      return Outcome.rejected(events.rejection(payment, reason));
    }
  }
}
