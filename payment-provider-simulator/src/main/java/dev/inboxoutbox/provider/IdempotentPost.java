package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.PaymentProviderSimulator.IDEMPOTENCY_KEY_HEADER;
import static dev.inboxoutbox.provider.PaymentProviderSimulator.MAX_IDEMPOTENCY_KEY_LENGTH;
import static dev.inboxoutbox.provider.PaymentProviderSimulator.REPLAYED_HEADER;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The frame of every idempotent {@code POST} of the simulator: the wire checks before its book
 * decides (path, method, the outage switch, the {@code Idempotency-Key} header, the body's size and
 * parameters), each refusal answered here, and the answers every book's decision shares: {@code
 * 201} for a new key, {@code 200} with {@code Idempotent-Replayed: true} for a replay, {@code 422}
 * for a key reused with other parameters.
 *
 * @param <R> the request's parameters
 */
abstract class IdempotentPost<R> implements Endpoint {

  static final int MAX_BODY_BYTES = 64 * 1024;

  private final String path;
  private final ObjectMapper json;
  final JsonResponses responses;
  private volatile boolean outage;

  IdempotentPost(String path, ObjectMapper json, JsonResponses responses) {
    this.path = path;
    this.json = json;
    this.responses = responses;
  }

  void outage(boolean on) {
    this.outage = on;
  }

  /** The request's parameters from its body. */
  abstract R parse(ObjectMapper json, byte[] body) throws InvalidRequestException;

  /** Lets the book decide on the request and answers its decision. */
  abstract void decide(HttpExchange exchange, String key, R request) throws IOException;

  @Override
  public final void handle(HttpExchange exchange) throws IOException {
    Accepted accepted = accept(exchange);
    if (accepted == null) {
      return;
    }
    R request;
    try {
      request = parse(json, accepted.body());
    } catch (InvalidRequestException e) {
      // Like Stripe: a request refused by validation stores nothing, so the key stays usable.
      responses.error(exchange, 400, "invalid_request", e.getMessage());
      return;
    }
    decide(exchange, accepted.key(), request);
  }

  /** A new key: what the book made. */
  void created(HttpExchange exchange, byte[] response) throws IOException {
    responses.send(exchange, 201, response);
  }

  /** A key used before with the same parameters: the response stored for it. */
  void replayed(HttpExchange exchange, byte[] response) throws IOException {
    exchange.getResponseHeaders().set(REPLAYED_HEADER, "true");
    responses.send(exchange, 200, response);
  }

  /** A key used before with other parameters, described as {@code original}. */
  void keyReused(HttpExchange exchange, String key, String original) throws IOException {
    responses.error(
        exchange,
        422,
        "idempotency_key_reused",
        "Idempotency-Key " + key + " was used for other parameters (" + original + ")");
  }

  /** A request that passed the wire checks. */
  private record Accepted(String key, byte[] body) {}

  /** The key and body of the request, or null when it was refused (and answered). */
  private Accepted accept(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(path)) {
      responses.notFound(exchange);
      return null;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      responses.methodNotAllowed(exchange, "POST");
      return null;
    }
    if (outage) {
      responses.error(
          exchange, 503, "provider_unavailable", "the provider is unavailable; retry later");
      return null;
    }
    String key = exchange.getRequestHeaders().getFirst(IDEMPOTENCY_KEY_HEADER);
    if (key == null || key.isBlank()) {
      responses.error(
          exchange, 400, "idempotency_key_missing", "the Idempotency-Key header is required");
      return null;
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
      return null;
    }
    byte[] body = readBody(exchange);
    if (body == null) {
      responses.error(exchange, 413, "body_too_large", "at most " + MAX_BODY_BYTES + " bytes");
      return null;
    }
    return new Accepted(key, body);
  }

  /** Reads at most {@link #MAX_BODY_BYTES}; null when the body is larger. */
  private static byte[] readBody(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
      return body.length > MAX_BODY_BYTES ? null : body;
    }
  }
}
