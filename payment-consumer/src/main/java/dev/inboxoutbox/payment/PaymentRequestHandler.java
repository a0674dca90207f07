package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import java.sql.SQLException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code PaymentRequested} -> a payment row and a {@code ChargeRequested} in the outbox, in one
 * transaction. The inbox drops redeliveries of the same event; the table's unique keys make a
 * second event for the same payment (or order) a no-op as well, so the charge is requested once.
 *
 * <p>{@code PaymentCancelRequested}, from the same topic and with the same key, so it comes after
 * its order's request, is {@link PaymentCancellation}'s.
 */
final class PaymentRequestHandler implements MessageHandler {

  static final String OPERATION = "payment-requests";
  static final String PAYMENT_REQUESTED = "PaymentRequested";
  static final String PAYMENT_CANCEL_REQUESTED = "PaymentCancelRequested";

  private final Payments payments;
  private final PaymentEvents events;
  private final PaymentCancellation cancellation;

  PaymentRequestHandler(Payments payments, PaymentEvents events) {
    this.payments = payments;
    this.events = events;
    this.cancellation = new PaymentCancellation(payments, events);
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    String type = message.type().orElse("");
    switch (type) {
      case PAYMENT_REQUESTED:
        return requested(newPayment(message.payload()), context);
      case PAYMENT_CANCEL_REQUESTED:
        return cancellation.cancel(newPayment(message.payload()), context);
      default:
        throw PoisonMessageException.unknownType(type);
    }
  }

  /** The payment an event names; both events name all of it. */
  static Payments.NewPayment newPayment(JsonNode payload) {
    return new Payments.NewPayment(
        Payloads.text(payload, "paymentId"),
        Payloads.text(payload, "orderId"),
        Payloads.text(payload, "customerId"),
        Payloads.positiveCents(payload, "amountCents"),
        Payloads.currency(payload, "currency"));
  }

  private Outcome requested(Payments.NewPayment request, HandlerContext context) {
    if (payments.insertIfAbsent(request, PaymentStatus.REQUESTED)) {
      Payment created =
          new Payment(
              request.paymentId(),
              request.orderId(),
              request.customerId(),
              request.amountCents(),
              request.currency(),
              PaymentStatus.REQUESTED,
              Optional.empty(),
              Optional.empty(),
              0);
      context.emit(events.chargeRequested(created));
      return Outcome.success();
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
    return Outcome.success();
  }
}
