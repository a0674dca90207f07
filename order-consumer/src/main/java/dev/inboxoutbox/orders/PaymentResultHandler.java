package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/** {@code outbox.event.payment-result}: PaymentCaptured, PaymentFailed from payment-consumer. */
final class PaymentResultHandler implements MessageHandler {

  private final Orders orders;
  private final JsonMapper json;

  PaymentResultHandler(Orders orders, JsonMapper json) {
    this.orders = orders;
    this.json = json;
  }

  @Override
  public Outcome handle(IncomingMessage message, HandlerContext context) throws Exception {
    String type = message.type().orElseThrow(() -> PoisonMessageException.unknownType("(none)"));
    if (!type.equals("PaymentCaptured") && !type.equals("PaymentFailed")) {
      throw PoisonMessageException.unknownType(type);
    }
    try {
      orders.paymentResult(type, message.payload(), context::emitAll);
      // No caller reads a payment result's outcome back: a bare success is stored with the claim.
      return Outcome.success();
    } catch (OrderRejected rejected) {
      return rejected.outcome(json);
    }
  }

  /** The stock rows the batch's failed payments return their orders' reservations to. */
  @Override
  public void beforeBatch(List<IncomingMessage> messages, Connection connection) {
    List<String> failed = new ArrayList<>();
    for (IncomingMessage message : messages) {
      if (message.type().orElse("").equals("PaymentFailed")) {
        OrderCommandHandler.addText(failed, message.payload().path("orderId"));
      }
    }
    orders.lockStock(List.of(), failed, List.of());
  }
}
