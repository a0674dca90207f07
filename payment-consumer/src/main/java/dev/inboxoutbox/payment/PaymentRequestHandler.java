package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code PaymentRequested} -> a payment row and a {@code ChargeRequested} in the outbox, in one
 * transaction. The inbox drops redeliveries of the same event; the table's unique keys make a
 * second event for the same payment (or order) a no-op as well, so the charge is requested once.
 */
final class PaymentRequestHandler implements MessageHandler {

  static final String OPERATION = "payment-requests";
  static final String PAYMENT_REQUESTED = "PaymentRequested";

  private final Payments payments;
  private final PaymentEvents events;

  PaymentRequestHandler(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) {
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
    if (payments.insertIfAbsent(request)) {
      Payment created =
          new Payment(
              request.paymentId(),
              request.orderId(),
              request.customerId(),
              request.amountCents(),
              request.currency(),
              PaymentStatus.REQUESTED,
              Optional.empty(),
              0);
      context.emit(events.chargeRequested(created));
      return Outcome.success(
          events.outcome(
              "paymentId", request.paymentId(), "status", PaymentStatus.REQUESTED.name()));
    }
    Optional<Payment> existing = payments.find(request.paymentId());
    if (existing.isEmpty()) {
      return Outcome.rejected(
          events.outcome(
              "error",
              "order_has_another_payment",
              "orderId",
              request.orderId(),
              "paymentId",
              request.paymentId()));
    }
    Payment payment = existing.get();
    if (!payment.orderId().equals(request.orderId())
        || payment.amountCents() != request.amountCents()
        || !payment.currency().equals(request.currency())) {
      return Outcome.rejected(
          events.outcome(
              "error",
              "payment_mismatch",
              "paymentId",
              payment.paymentId(),
              "detail",
              "payment exists for order "
                  + payment.orderId()
                  + " with "
                  + payment.amountCents()
                  + " "
                  + payment.currency()));
    }
    // The same payment requested again under another event id: already in hand, nothing to emit.
    return Outcome.success(
        events.outcome("paymentId", payment.paymentId(), "status", payment.status().name()));
  }
}
