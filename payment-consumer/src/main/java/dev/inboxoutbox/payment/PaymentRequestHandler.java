package dev.inboxoutbox.payment;

import static dev.inboxoutbox.payment.PaymentEvents.outcome;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import java.sql.SQLException;
import java.util.Optional;

/**
 * {@code PaymentRequested} -> a payment row and a {@code ChargeRequested} in the outbox, in one
 * transaction. The inbox drops redeliveries of the same event; the table's unique keys make a
 * second event for the same payment (or order) a no-op as well, so the charge is requested once.
 */
final class PaymentRequestHandler implements MessageHandler {

  static final String OPERATION = "payment-requests";
  static final String PAYMENT_REQUESTED = "PaymentRequested";

  private final Payments payments;

  PaymentRequestHandler(Payments payments) {
    this.payments = payments;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    String type = message.type().orElse("");
    if (!type.equals(PAYMENT_REQUESTED)) {
      throw PoisonMessageException.unknownType(type);
    }
    JsonNode payload = message.payload();
    Payments.NewPayment request =
        new Payments.NewPayment(
            Payloads.text(payload, "paymentId"),
            Payloads.text(payload, "orderId"),
            Payloads.text(payload, "customerId"),
            Payloads.positiveCents(payload, "amountCents"),
            Payloads.currency(payload, "currency"));
    if (payments.insertIfAbsent(context.connection(), request)) {
      Payment created =
          new Payment(
              request.paymentId(), request.orderId(), request.customerId(), request.amountCents(),
              request.currency(), PaymentStatus.REQUESTED, Optional.empty(), 0);
      context.emit(PaymentEvents.chargeRequested(created));
      return Outcome.success(outcome("paymentId", request.paymentId(), "status", PaymentStatus.REQUESTED.name()));
    }
    Optional<Payment> existing = payments.find(context.connection(), request.paymentId());
    if (existing.isEmpty()) {
      return Outcome.rejected(outcome(
          "error", "order_has_another_payment", "orderId", request.orderId(), "paymentId", request.paymentId()));
    }
    Payment payment = existing.get();
    if (!payment.orderId().equals(request.orderId())
        || payment.amountCents() != request.amountCents()
        || !payment.currency().equals(request.currency())) {
      return Outcome.rejected(outcome(
          "error", "payment_mismatch", "paymentId", payment.paymentId(),
          "detail", "payment exists for order " + payment.orderId() + " with "
              + payment.amountCents() + " " + payment.currency()));
    }
    // The same payment requested again under another event id: already in hand, nothing to emit.
    return Outcome.success(outcome("paymentId", payment.paymentId(), "status", payment.status().name()));
  }
}
