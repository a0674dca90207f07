package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import java.sql.SQLException;
import java.util.Optional;

/**
 * {@code PaymentCancelRequested} (the order was cancelled) -> the payment is called off: {@code
 * CANCELLED} when the provider has not taken the money (the charger then never sends the charge; a
 * charge already on its way is refunded when its webhook comes), {@code REFUND_REQUESTED} with a
 * {@code RefundRequested} in the outbox when it has. Runs in the consumer batch's transaction, so
 * the state, the event and the inbox claim commit together.
 */
final class PaymentCancellation {

  private final Payments payments;
  private final PaymentEvents events;
  private final PaymentUpdates updates;

  PaymentCancellation(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
    this.updates = new PaymentUpdates(payments);
  }

  Outcome cancel(Payments.NewPayment cancelled, HandlerContext context) throws SQLException {
    // The request comes first in the partition; should the cancel ever be first, the payment is
    // recorded as cancelled, and its request then finds it and asks for no charge.
    if (payments.insertIfAbsent(cancelled, PaymentStatus.CANCELLED)) {
      return Outcome.success();
    }
    Optional<Payment> found = payments.find(cancelled.paymentId());
    if (found.isEmpty()) {
      return Outcome.rejected(
          events.outcome(
              "error",
              "order_has_another_payment",
              "orderId",
              cancelled.orderId(),
              "paymentId",
              cancelled.paymentId()));
    }
    return updates.apply(found.get(), new Cancel(context), "being cancelled");
  }

  private final class Cancel implements PaymentUpdates.Change {

    private final HandlerContext context;

    Cancel(HandlerContext context) {
      this.context = context;
    }

    @Override
    public Decision decide(Payment payment) {
      return PaymentTransitions.onCancel(payment);
    }

    @Override
    public Optional<Outcome> write(Payment read, PaymentStatus next) {
      String chargeId = read.chargeId().orElse(null);
      if (!payments.update(read, next, chargeId, null)) {
        return Optional.empty();
      }
      if (next == PaymentStatus.REFUND_REQUESTED) {
        context.emit(events.refundRequested(read, chargeId));
      }
      return Optional.of(Outcome.success());
    }

    @Override
    public Outcome alreadyApplied(Payment payment) {
      return Outcome.success();
    }

    @Override
    public Outcome rejected(Payment payment, String reason) {
      return Outcome.rejected(events.rejection(payment, reason));
    }
  }
}
