package dev.inboxoutbox.payment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls the provider's {@code POST /v1/charges}. Every attempt sends the same idempotency key and
 * the same parameters, so any number of attempts, redeliveries and restarts make one charge.
 */
public final class ProviderClient {

  private static final Logger log = LoggerFactory.getLogger(ProviderClient.class);

  private final JsonMapper json;
  private final URI chargesUrl;
  private final Duration requestTimeout;
  private final int attempts;
  private final Duration retryBackoff;
  private final HttpClient http;

  /** The charge as the provider recorded it. */
  public record Charge(String chargeId, String status, boolean replayed) {}

  /** The body of {@code POST /v1/charges}. */
  private record ChargeRequest(String paymentId, long amountCents, String currency) {}

  public ProviderClient(
      JsonMapper json,
      URI baseUrl,
      Duration connectTimeout,
      Duration requestTimeout,
      int attempts,
      Duration retryBackoff) {
    if (attempts < 1) {
      throw new IllegalArgumentException("at least one attempt");
    }
    this.json = json;
    this.chargesUrl = baseUrl.resolve("/v1/charges");
    this.requestTimeout = requestTimeout;
    this.attempts = attempts;
    this.retryBackoff = retryBackoff;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .build();
  }

  /**
   * Charges once per idempotency key. Transient failures are retried here a few times with a
   * doubling pause, then thrown as {@link ProviderUnavailableException}.
   *
   * @throws ChargeRefusedException when the provider refuses the request for good
   */
  public Charge charge(String idempotencyKey, String paymentId, long amountCents, String currency)
      throws ProviderUnavailableException {
    String body = json.writeValueAsString(new ChargeRequest(paymentId, amountCents, currency));
    HttpRequest request =
        HttpRequest.newBuilder(chargesUrl)
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    Exception lastFailure = null;
    String lastProblem = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        pause(retryBackoff.multipliedBy(1L << (attempt - 2)), idempotencyKey);
      }
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status == 200 || status == 201) {
          return parse(response);
        }
        if (status == 409 || status == 429 || status >= 500) {
          lastProblem = "answered " + status + " " + abbreviate(response.body());
          lastFailure = null;
        } else {
          throw new ChargeRefusedException(
              status,
              "provider refused charge "
                  + idempotencyKey
                  + ": "
                  + status
                  + " "
                  + abbreviate(response.body()));
        }
      } catch (IOException e) {
        lastProblem = e.getClass().getSimpleName() + ": " + e.getMessage();
        lastFailure = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ProviderUnavailableException("interrupted while charging " + idempotencyKey, e);
      }
      log.debug(
          "charge {} attempt {}/{} failed: {}", idempotencyKey, attempt, attempts, lastProblem);
    }
    throw new ProviderUnavailableException(
        "provider unavailable for charge "
            + idempotencyKey
            + " after "
            + attempts
            + " attempts: "
            + lastProblem,
        lastFailure);
  }

  private Charge parse(HttpResponse<String> response) throws ProviderUnavailableException {
    try {
      JsonNode charge = json.readTree(response.body());
      JsonNode chargeId = charge == null ? null : charge.get("chargeId");
      JsonNode status = charge == null ? null : charge.get("status");
      if (chargeId == null || !chargeId.isString() || status == null || !status.isString()) {
        throw new ProviderUnavailableException(
            "provider answered without chargeId/status: " + abbreviate(response.body()), null);
      }
      boolean replayed =
          response
              .headers()
              .firstValue("Idempotent-Replayed")
              .map("true"::equalsIgnoreCase)
              .orElse(false);
      return new Charge(chargeId.stringValue(), status.stringValue(), replayed);
    } catch (JacksonException e) {
      throw new ProviderUnavailableException(
          "provider answered with invalid JSON: " + abbreviate(response.body()), e);
    }
  }

  private static void pause(Duration pause, String idempotencyKey)
      throws ProviderUnavailableException {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProviderUnavailableException("interrupted while charging " + idempotencyKey, e);
    }
  }

  private static String abbreviate(String text) {
    if (text == null) {
      return "";
    }
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }
}
