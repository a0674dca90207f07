package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.PaymentProviderSimulator.REPLAYED_HEADER;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.ChargeBook.ChargeOutcome;
import dev.inboxoutbox.provider.ChargeBook.Created;
import dev.inboxoutbox.provider.ChargeBook.KeyReused;
import dev.inboxoutbox.provider.ChargeBook.Replayed;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.io.IOException;

/**
 * {@code POST /v1/charges}: checks the request on the wire (method, key, body) and answers what the
 * {@link ChargeBook} decided: {@code 201} for a new charge, {@code 200} with {@code
 * Idempotent-Replayed: true} for a replay, {@code 422} for a key reused with other parameters,
 * {@code 400} for a missing, too long or invalid request. During a simulated outage it answers
 * {@code 503} before anything is stored.
 */
final class ChargesEndpoint implements Endpoint {

  static final String PATH = "/v1/charges";

  private final ObjectMapper json;
  private final JsonResponses responses;
  private final ChargeBook charges;
  private final IdempotentPost post;

  ChargesEndpoint(ObjectMapper json, JsonResponses responses, ChargeBook charges) {
    this.json = json;
    this.responses = responses;
    this.charges = charges;
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
    byte[] body = accepted.body();
    ChargeRequest request;
    try {
      request = ChargeRequest.parse(json, body);
    } catch (InvalidRequestException e) {
      // Like Stripe: a request refused by validation stores nothing, so the key stays usable.
      responses.error(exchange, 400, "invalid_request", e.getMessage());
      return;
    }
    ChargeOutcome outcome = charges.charge(key, request);
    if (outcome instanceof Created created) {
      responses.send(exchange, 201, created.response());
    } else if (outcome instanceof Replayed replayed) {
      exchange.getResponseHeaders().set(REPLAYED_HEADER, "true");
      responses.send(exchange, 200, replayed.response());
    } else if (outcome instanceof KeyReused reused) {
      ChargeRequest original = reused.original();
      responses.error(
          exchange,
          422,
          "idempotency_key_reused",
          "Idempotency-Key "
              + key
              + " was used for other parameters (payment "
              + original.paymentId()
              + ", "
              + original.amountCents()
              + " "
              + original.currency()
              + ")");
    }
  }
}
