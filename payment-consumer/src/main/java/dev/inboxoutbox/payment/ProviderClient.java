package dev.inboxoutbox.payment;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.RequestReplySenderContext;
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
 * Calls the provider's {@code POST /v1/charges} and {@code POST /v1/refunds}. Every attempt sends
 * the same idempotency key and the same parameters, so any number of attempts, redeliveries and
 * restarts make one charge, and one refund.
 */
public final class ProviderClient {

  private static final Logger log = LoggerFactory.getLogger(ProviderClient.class);

  private final JsonMapper json;
  private final URI chargesUrl;
  private final URI refundsUrl;
  private final Duration requestTimeout;
  private final int attempts;
  private final Duration retryBackoff;
  private final HttpClient http;
  private final ObservationRegistry observations;

  /** The charge as the provider recorded it. */
  public record Charge(String chargeId, String status, boolean replayed) {}

  /** The refund as the provider recorded it. */
  public record Refund(String refundId, boolean replayed) {}

  /** The body of {@code POST /v1/charges}. */
  private record ChargeRequest(String paymentId, long amountCents, String currency) {}

  /** The body of {@code POST /v1/refunds}. */
  private record RefundRequest(String chargeId, long amountCents) {}

  /**
   * A client whose calls are {@code payment.provider.request} observations: with a tracer, each
   * request carries the current trace context ({@code traceparent}), and the provider's webhooks
   * carry it back.
   */
  public ProviderClient(
      JsonMapper json,
      URI baseUrl,
      Duration connectTimeout,
      Duration requestTimeout,
      int attempts,
      Duration retryBackoff,
      ObservationRegistry observations) {
    if (attempts < 1) {
      throw new IllegalArgumentException("at least one attempt");
    }
    this.json = json;
    this.chargesUrl = baseUrl.resolve("/v1/charges");
    this.refundsUrl = baseUrl.resolve("/v1/refunds");
    this.requestTimeout = requestTimeout;
    this.attempts = attempts;
    this.retryBackoff = retryBackoff;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .build();
    this.observations = observations;
  }

  /**
   * Charges once per idempotency key. Transient failures are retried here a few times with a
   * doubling pause, then thrown as {@link ProviderUnavailableException}.
   *
   * @throws ProviderRefusedException when the provider refuses the request for good
   */
  public Charge charge(String idempotencyKey, String paymentId, long amountCents, String currency)
      throws ProviderUnavailableException {
    HttpResponse<String> response =
        post(
            chargesUrl,
            idempotencyKey,
            json.writeValueAsString(new ChargeRequest(paymentId, amountCents, currency)),
            "charge");
    JsonNode charge = parse(response);
    return new Charge(
        requiredText(charge, "chargeId", response),
        requiredText(charge, "status", response),
        replayed(response));
  }

  /**
   * Refunds once per idempotency key; retried and refused like {@link #charge}.
   *
   * @throws ProviderRefusedException when the provider refuses the refund for good (no such charge,
   *     a failed charge, more than the charge took, the key reused)
   */
  public Refund refund(String idempotencyKey, String chargeId, long amountCents)
      throws ProviderUnavailableException {
    HttpResponse<String> response =
        post(
            refundsUrl,
            idempotencyKey,
            json.writeValueAsString(new RefundRequest(chargeId, amountCents)),
            "refund");
    return new Refund(requiredText(parse(response), "refundId", response), replayed(response));
  }

  /** The provider's 200 or 201 to this request, after at most {@code attempts} tries. */
  private HttpResponse<String> post(URI url, String idempotencyKey, String body, String what)
      throws ProviderUnavailableException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .timeout(requestTimeout)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    RequestReplySenderContext<HttpRequest.Builder, HttpResponse<String>> context =
        new RequestReplySenderContext<>(HttpRequest.Builder::header);
    context.setCarrier(request);
    context.setRemoteServiceName("payment-provider");
    Observation observation =
        Observation.createNotStarted("payment.provider.request", () -> context, observations)
            .contextualName("provider " + what)
            .lowCardinalityKeyValue("payment.provider.operation", what);
    // Started before the request is built: a tracer's propagating handler adds its headers then.
    observation.start();
    try (Observation.Scope scope = observation.openScope()) {
      HttpResponse<String> response = send(request.build(), idempotencyKey, what);
      context.setResponse(response);
      return response;
    } catch (RuntimeException e) {
      observation.error(e);
      throw e;
    } finally {
      observation.stop();
    }
  }

  private HttpResponse<String> send(HttpRequest request, String idempotencyKey, String what)
      throws ProviderUnavailableException {
    Exception lastFailure = null;
    String lastProblem = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        pause(retryBackoff.multipliedBy(1L << (attempt - 2)), what, idempotencyKey);
      }
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status == 200 || status == 201) {
          return response;
        }
        if (status == 409 || status == 429 || status >= 500) {
          lastProblem = "answered " + status + " " + abbreviate(response.body());
          lastFailure = null;
        } else {
          throw new ProviderRefusedException(
              status,
              "provider refused "
                  + what
                  + " "
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
        throw new ProviderUnavailableException(
            "interrupted during " + what + " " + idempotencyKey, e);
      }
      log.debug(
          "{} {} attempt {}/{} failed: {}", what, idempotencyKey, attempt, attempts, lastProblem);
    }
    throw new ProviderUnavailableException(
        "provider unavailable for "
            + what
            + " "
            + idempotencyKey
            + " after "
            + attempts
            + " attempts: "
            + lastProblem,
        lastFailure);
  }

  private JsonNode parse(HttpResponse<String> response) throws ProviderUnavailableException {
    try {
      JsonNode body = json.readTree(response.body());
      if (body == null || !body.isObject()) {
        throw new ProviderUnavailableException(
            "provider answered without a JSON object: " + abbreviate(response.body()), null);
      }
      return body;
    } catch (JacksonException e) {
      throw new ProviderUnavailableException(
          "provider answered with invalid JSON: " + abbreviate(response.body()), e);
    }
  }

  private static String requiredText(JsonNode body, String field, HttpResponse<String> response)
      throws ProviderUnavailableException {
    JsonNode value = body.get(field);
    if (value == null || !value.isString()) {
      throw new ProviderUnavailableException(
          "provider answered without " + field + ": " + abbreviate(response.body()), null);
    }
    return value.stringValue();
  }

  private static boolean replayed(HttpResponse<String> response) {
    return response
        .headers()
        .firstValue("Idempotent-Replayed")
        .map("true"::equalsIgnoreCase)
        .orElse(false);
  }

  private static void pause(Duration pause, String what, String idempotencyKey)
      throws ProviderUnavailableException {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProviderUnavailableException(
          "interrupted during " + what + " " + idempotencyKey, e);
    }
  }

  private static String abbreviate(String text) {
    if (text == null) {
      return "";
    }
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }
}
