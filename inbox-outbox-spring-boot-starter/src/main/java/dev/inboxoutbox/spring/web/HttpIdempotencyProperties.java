package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.IdempotencyKey;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code inbox-outbox.http.*}: how {@link IdempotentEndpoint}s read keys and replay answers, and
 * how large a request body any endpoint accepts.
 *
 * @param keyHeader Request header carrying the idempotency key (its octets are read as UTF-8).
 * @param tenantHeader Request header naming the tenant, which narrows the key's scope; none by
 *     default.
 * @param replayedHeaders Response headers stored with the answer and replayed; Content-Type always
 *     is.
 * @param retryAfter Retry-After sent with the 409 answered while the first request with a key is in
 *     flight.
 * @param maxRequestBody The largest request body accepted; a larger one gets 413 before it is read.
 */
@ConfigurationProperties("inbox-outbox.http")
public record HttpIdempotencyProperties(
    @DefaultValue(IdempotencyKey.HEADER) String keyHeader,
    String tenantHeader,
    @DefaultValue("Location") List<String> replayedHeaders,
    @DefaultValue("1s") Duration retryAfter,
    @DefaultValue("1MB") DataSize maxRequestBody) {

  public HttpIdempotencyProperties {
    replayedHeaders = replayedHeaders == null ? List.of() : List.copyOf(replayedHeaders);
  }
}
