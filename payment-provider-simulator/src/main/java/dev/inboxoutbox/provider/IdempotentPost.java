package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.PaymentProviderSimulator.IDEMPOTENCY_KEY_HEADER;
import static dev.inboxoutbox.provider.PaymentProviderSimulator.MAX_IDEMPOTENCY_KEY_LENGTH;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;

/**
 * The wire checks every idempotent {@code POST} of the simulator makes before its book decides:
 * path, method, the outage switch, the {@code Idempotency-Key} header and the body's size. Each
 * refusal is answered here; the caller gets the key and body only of a request that passed.
 */
final class IdempotentPost {

  static final int MAX_BODY_BYTES = 64 * 1024;

  /** A request that passed the wire checks. */
  record Accepted(String key, byte[] body) {}

  private final String path;
  private final JsonResponses responses;
  private volatile boolean outage;

  IdempotentPost(String path, JsonResponses responses) {
    this.path = path;
    this.responses = responses;
  }

  void outage(boolean on) {
    this.outage = on;
  }

  /** The key and body of the request, or null when it was refused (and answered). */
  Accepted accept(HttpExchange exchange) throws IOException {
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
