package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.IdempotencyKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code inbox-outbox.http.*}: how {@link IdempotentEndpoint}s read keys and replay answers, and
 * how large a request body any endpoint accepts.
 */
@ConfigurationProperties("inbox-outbox.http")
public class HttpIdempotencyProperties {

  /** Request header carrying the idempotency key (its octets are read as UTF-8). */
  private String keyHeader = IdempotencyKey.HEADER;

  /** Request header naming the tenant, which narrows the key's scope; none by default. */
  private String tenantHeader;

  /** Response headers stored with the answer and replayed; Content-Type always is. */
  private List<String> replayedHeaders = new ArrayList<>(List.of("Location"));

  /** Retry-After sent with the 409 answered while the first request with a key is in flight. */
  private Duration retryAfter = Duration.ofSeconds(1);

  /** The largest request body accepted; a larger one gets 413 before it is read. */
  private DataSize maxRequestBody = DataSize.ofMegabytes(1);

  public DataSize getMaxRequestBody() {
    return maxRequestBody;
  }

  public void setMaxRequestBody(DataSize maxRequestBody) {
    this.maxRequestBody = maxRequestBody;
  }

  public String getKeyHeader() {
    return keyHeader;
  }

  public void setKeyHeader(String keyHeader) {
    this.keyHeader = keyHeader;
  }

  public String getTenantHeader() {
    return tenantHeader;
  }

  public void setTenantHeader(String tenantHeader) {
    this.tenantHeader = tenantHeader;
  }

  public List<String> getReplayedHeaders() {
    return replayedHeaders;
  }

  public void setReplayedHeaders(List<String> replayedHeaders) {
    this.replayedHeaders = replayedHeaders;
  }

  public Duration getRetryAfter() {
    return retryAfter;
  }

  public void setRetryAfter(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }
}
