package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import dev.inboxoutbox.payment.PaymentTransitions.Verdict;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;

/**
 * {@code PaymentCancelRequested} (the order was cancelled) -> the payment is called off: {@code
 * CANCELLED} when the provider has not taken the money (the charger then never sends the charge; a
 * charge already on its way is refunded when its webhook comes), {@code REFUND_REQUESTED} with a
 * {@code RefundRequested} in the outbox when it has. Runs in the consumer batch's transaction, so
 * the state, the event and the inbox claim commit together.
 */
final class PaymentCancellation {

  private static final int UPDATE_ATTEMPTS = 5;

  private final Payments payments;
  private final PaymentEvents events;

  PaymentCancellation(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
  }

  Outcome cancel(Payments.NewPayment cancelled, HandlerContext context) throws SQLException {
    // The request comes first in the partition; should the cancel ever be first, the payment is
    // recorded as cancelled, and its request then finds it and asks for no charge.
    if (payments.insertIfAbsent(cancelled, PaymentStatus.CANCELLED)) {
      return Outcome.success(
          events.outcome(
              "paymentId", cancelled.paymentId(), "status", PaymentStatus.CANCELLED.name()));
    }
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
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
      Payment payment = found.get();
      Decision decision = PaymentTransitions.onCancel(payment);
      if (decision.verdict() != Verdict.APPLY) {
        return Outcome.success(
            events.outcome("paymentId", payment.paymentId(), "status", payment.status().name()));
      }
      String chargeId = payment.chargeId().orElse(null);
      if (payments.update(payment, decision.next(), chargeId, null)) {
        if (decision.next() == PaymentStatus.REFUND_REQUESTED) {
          context.emit(events.refundRequested(payment, chargeId));
        }
        return Outcome.success(
            events.outcome("paymentId", payment.paymentId(), "status", decision.next().name()));
      }
    }
    // A serialization failure (SQLSTATE 40001): the consumer runtime retries the batch later.
    throw new SQLTransactionRollbackException(
        "payment " + cancelled.paymentId() + " kept changing while being cancelled", "40001");
  }
}
