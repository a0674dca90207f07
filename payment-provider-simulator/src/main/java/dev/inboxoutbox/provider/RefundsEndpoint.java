package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.PaymentProviderSimulator.REPLAYED_HEADER;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.RefundBook.ChargeFailed;
import dev.inboxoutbox.provider.RefundBook.Created;
import dev.inboxoutbox.provider.RefundBook.ExceedsCharge;
import dev.inboxoutbox.provider.RefundBook.KeyReused;
import dev.inboxoutbox.provider.RefundBook.NoSuchCharge;
import dev.inboxoutbox.provider.RefundBook.RefundOutcome;
import dev.inboxoutbox.provider.RefundBook.Replayed;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.io.IOException;

/**
 * {@code POST /v1/refunds}: the wire checks of every idempotent post, then what the {@link
 * RefundBook} decided: {@code 201} for a new refund, {@code 200} with {@code Idempotent-Replayed:
 * true} for a replay, {@code 422} for a key reused with other parameters, {@code 404} for an
 * unknown charge, {@code 400} for a failed charge or a refund beyond what the charge took.
 */
final class RefundsEndpoint implements Endpoint {

  static final String PATH = "/v1/refunds";

  private final ObjectMapper json;
  private final JsonResponses responses;
  private final RefundBook refunds;
  private final IdempotentPost post;

  RefundsEndpoint(ObjectMapper json, JsonResponses responses, RefundBook refunds) {
    this.json = json;
    this.responses = responses;
    this.refunds = refunds;
    this.post = new IdempotentPost(PATH, responses);
  }

  void outage(boolean on) {
    post.outage(on);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    IdempotentPost.Accepted accepted = post.accept(exchange);
    if (accepted == null) {
      return;
    }
    String key = accepted.key();
    RefundRequest request;
    try {
      request = RefundRequest.parse(json, accepted.body());
    } catch (InvalidRequestException e) {
      responses.error(exchange, 400, "invalid_request", e.getMessage());
      return;
    }
    RefundOutcome outcome = refunds.refund(key, request);
    if (outcome instanceof Created created) {
      responses.send(exchange, 201, created.response());
    } else if (outcome instanceof Replayed replayed) {
      exchange.getResponseHeaders().set(REPLAYED_HEADER, "true");
      responses.send(exchange, 200, replayed.response());
    } else if (outcome instanceof KeyReused reused) {
      responses.error(
          exchange,
          422,
          "idempotency_key_reused",
          "Idempotency-Key "
              + key
              + " was used for other parameters (charge "
              + reused.original().chargeId()
              + ", "
              + reused.original().amountCents()
              + ")");
    } else if (outcome instanceof NoSuchCharge missing) {
      responses.error(exchange, 404, "no_such_charge", "no charge " + missing.chargeId());
    } else if (outcome instanceof ChargeFailed failed) {
      responses.error(
          exchange,
          400,
          "charge_not_refundable",
          "charge " + failed.chargeId() + " failed: it took no money");
    } else if (outcome instanceof ExceedsCharge exceeds) {
      responses.error(
          exchange,
          400,
          "refund_exceeds_charge",
          "charge "
              + exceeds.charge().chargeId()
              + " took "
              + exceeds.charge().amountCents()
              + ", of which "
              + exceeds.alreadyRefunded()
              + " is refunded already");
    }
  }
}
