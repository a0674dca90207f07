package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.PaymentProviderSimulator.IDEMPOTENCY_KEY_HEADER;
import static dev.inboxoutbox.provider.PaymentProviderSimulator.MAX_IDEMPOTENCY_KEY_LENGTH;
import static dev.inboxoutbox.provider.PaymentProviderSimulator.REPLAYED_HEADER;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.ChargeBook.ChargeOutcome;
import dev.inboxoutbox.provider.ChargeBook.Created;
import dev.inboxoutbox.provider.ChargeBook.KeyReused;
import dev.inboxoutbox.provider.ChargeBook.Replayed;
import dev.inboxoutbox.provider.ChargeRequest.InvalidChargeRequestException;
import java.io.IOException;
import java.io.InputStream;

/**
 * {@code POST /v1/charges}: checks the request on the wire (method, key, body) and answers what the
 * {@link ChargeBook} decided: {@code 201} for a new charge, {@code 200} with {@code
 * Idempotent-Replayed: true} for a replay, {@code 422} for a key reused with other parameters,
 * {@code 400} for a missing, too long or invalid request. During a simulated outage it answers
 * {@code 503} before anything is stored.
 */
final class ChargesEndpoint implements Endpoint {

  static final String PATH = "/v1/charges";
  private static final int MAX_BODY_BYTES = 64 * 1024;

  private final ObjectMapper json;
  private final JsonResponses responses;
  private final ChargeBook charges;
  private volatile boolean outage;

  ChargesEndpoint(ObjectMapper json, JsonResponses responses, ChargeBook charges) {
    this.json = json;
    this.responses = responses;
    this.charges = charges;
  }

  void outage(boolean on) {
    this.outage = on;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(PATH)) {
      responses.notFound(exchange);
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      responses.methodNotAllowed(exchange, "POST");
      return;
    }
    if (outage) {
      responses.error(
          exchange, 503, "provider_unavailable", "the provider is unavailable; retry later");
      return;
    }
    String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY_HEADER);
    if (key == null || key.isBlank()) {
      responses.error(
          exchange, 400, "idempotency_key_missing", "the Idempotency-Key header is required");
      return;
    }
    if (key.length() > MAX_IDEMPOTENCY_KEY_LENGTH) {
      responses.error(
          exchange,
          400,
          "idempotency_key_too_long",
          "Idempotency-Key has "
              + key.length()
              + " characters; at most "
              + MAX_IDEMPOTENCY_KEY_LENGTH);
      return;
    }
    byte[] body = readBody(exchange);
    if (body == null) {
      responses.error(exchange, 413, "body_too_large", "at most " + MAX_BODY_BYTES + " bytes");
      return;
    }
    ChargeRequest request;
    try {
      request = ChargeRequest.parse(json, body);
    } catch (InvalidChargeRequestException e) {
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

  /** Reads at most {@link #MAX_BODY_BYTES}; null when the body is larger. */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }
}
