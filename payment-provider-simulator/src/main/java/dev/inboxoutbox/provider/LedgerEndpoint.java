package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/** {@code GET /v1/ledger}: every charge and every refund the provider made, each in order. */
final class LedgerEndpoint implements Endpoint {

  static final String PATH = "/v1/ledger";

  private final JsonResponses responses;
  private final ChargeBook charges;
  private final RefundBook refunds;

  LedgerEndpoint(JsonResponses responses, ChargeBook charges, RefundBook refunds) {
    this.responses = responses;
    this.charges = charges;
    this.refunds = refunds;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(PATH)) {
      responses.notFound(exchange);
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      responses.methodNotAllowed(exchange, "GET");
      return;
    }
    ObjectNode root = responses.object();
    ArrayNode entries = root.putArray("charges");
    for (LedgerEntry entry : charges.ledger()) {
      ObjectNode charge = entries.addObject();
      charge.put("chargeId", entry.chargeId());
      charge.put("paymentId", entry.paymentId());
      charge.put("amountCents", entry.amountCents());
      charge.put("currency", entry.currency());
      charge.put("status", entry.status().wireName());
      charge.put("idempotencyKey", entry.idempotencyKey());
      charge.put("createdAt", entry.createdAt().toString());
    }
    ArrayNode refundEntries = root.putArray("refunds");
    for (RefundEntry entry : refunds.ledger()) {
      ObjectNode refund = refundEntries.addObject();
      refund.put("refundId", entry.refundId());
      refund.put("chargeId", entry.chargeId());
      refund.put("paymentId", entry.paymentId());
      refund.put("amountCents", entry.amountCents());
      refund.put("currency", entry.currency());
      refund.put("idempotencyKey", entry.idempotencyKey());
      refund.put("createdAt", entry.createdAt().toString());
    }
    responses.send(exchange, 200, root);
  }
}
