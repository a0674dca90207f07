package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import tools.jackson.databind.json.JsonMapper;

/** The Kafka side: order commands and payment results, each applied once per key. */
final class OrderHandlers {

  private final Orders orders;
  private final JsonMapper json;

  OrderHandlers(Orders orders, JsonMapper json) {
    this.orders = orders;
    this.json = json;
  }

  /** {@code orders.commands}: PlaceOrder, CancelOrder. */
  Outcome command(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    try {
      switch (type) {
        case "PlaceOrder":
          return Outcome.success(
              201,
              orders.place(message.idempotencyKey().value(), message.payload(), context::emit));
        case "CancelOrder":
          return Outcome.success(200, orders.cancel(message.payload(), context::emit));
        default:
          throw PoisonMessageException.unknownType(type);
      }
    } catch (OrderRejected rejected) {
      return rejected.outcome(json);
    }
  }

  /** {@code outbox.event.payment-result}: PaymentCaptured, PaymentFailed. */
  Outcome paymentResult(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    if (!type.equals("PaymentCaptured") && !type.equals("PaymentFailed")) {
      throw PoisonMessageException.unknownType(type);
    }
    try {
      return Outcome.success(orders.paymentResult(type, message.payload(), context::emit));
    } catch (OrderRejected rejected) {
      return rejected.outcome(json);
    }
  }
}
