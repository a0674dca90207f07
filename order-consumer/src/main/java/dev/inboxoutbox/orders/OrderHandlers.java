package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;

/** The Kafka side: order commands and payment results, each applied once per key. */
final class OrderHandlers {

  private final Orders orders;

  OrderHandlers(Orders orders) {
    this.orders = orders;
  }

  /** {@code orders.commands}: PlaceOrder, CancelOrder. */
  Outcome command(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    try {
      switch (type) {
        case "PlaceOrder":
          return Outcome.success(orders.place(context.connection(), message.idempotencyKey().value(), message.payload(), context::emit)).withCode(201);
        case "CancelOrder":
          return Outcome.success(orders.cancel(context.connection(), message.payload(), context::emit)).withCode(200);
        default:
          throw PoisonMessageException.unknownType(type);
      }
    } catch (OrderRejected rejected) {
      return rejection(rejected);
    }
  }

  /** {@code outbox.event.payment-result}: PaymentCaptured, PaymentFailed. */
  Outcome paymentResult(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    if (!type.equals("PaymentCaptured") && !type.equals("PaymentFailed")) {
      throw PoisonMessageException.unknownType(type);
    }
    try {
      return Outcome.success(orders.paymentResult(context.connection(), type, message.payload(), context::emit));
    } catch (OrderRejected rejected) {
      return rejection(rejected);
    }
  }

  static Outcome rejection(OrderRejected rejected) {
    return Outcome.rejected(rejectionBody(rejected)).withCode(rejected.status());
  }

  /** The reason a rejection gives, over Kafka (stored outcome) and HTTP alike. */
  static String rejectionBody(OrderRejected rejected) {
    return "{\"error\":" + Orders.quote(rejected.code()) + ",\"message\":" + Orders.quote(rejected.getMessage()) + "}";
  }
}
