package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code orders.commands}: PlaceOrder, CancelOrder, each applied once per key. */
final class OrderCommandHandler implements MessageHandler {

  private final Orders orders;
  private final JsonMapper json;

  OrderCommandHandler(Orders orders, JsonMapper json) {
    this.orders = orders;
    this.json = json;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    try {
      switch (type) {
        case "PlaceOrder":
          return Outcome.success(
              201,
              orders.place(message.idempotencyKey().value(), message.payload(), context::emitAll));
        case "CancelOrder":
          return Outcome.success(200, orders.cancel(message.payload(), context::emitAll));
        default:
          throw PoisonMessageException.unknownType(type);
      }
    } catch (OrderRejected rejected) {
      return rejected.outcome(json);
    }
  }

  /** The stock rows the batch's orders take from and its cancellations return to. */
  @Override
  public void beforeBatch(List<IncomingMessage> messages, Connection connection) {
    List<String> skus = new ArrayList<>();
    List<String> cancelled = new ArrayList<>();
    List<String> cancelledPlacedBy = new ArrayList<>();
    for (IncomingMessage message : messages) {
      String type = message.type().orElse("");
      JsonNode payload = message.payload();
      if (type.equals("PlaceOrder")) {
        payload.path("items").forEach(item -> addText(skus, item.path("sku")));
      } else if (type.equals("CancelOrder")) {
        addText(cancelled, payload.path("orderId"));
        addText(cancelledPlacedBy, payload.path("placedBy"));
      }
    }
    orders.lockStock(skus, cancelled, cancelledPlacedBy);
  }

  /** Adds a text node's value; anything else is left to the handler to reject. */
  static void addText(List<String> values, JsonNode node) {
    if (node.isString()) {
      values.add(node.asString());
    }
  }
}
