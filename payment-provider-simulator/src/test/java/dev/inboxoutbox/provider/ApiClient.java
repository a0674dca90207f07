package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Calls a simulator's HTTP API the way a payment service does, for the tests of that API. */
final class ApiClient {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PaymentProviderSimulator provider;

  ApiClient(PaymentProviderSimulator provider) {
    this.provider = provider;
  }

  /** {@code POST path} with the body, under the key ({@code null}: no key header). */
  HttpResponse<String> post(String path, String key, String body)
      throws IOException, InterruptedException {
    return post(path, key, body, Map.of());
  }

  /** {@code POST path} with the body, under the key, with more headers (a trace context). */
  HttpResponse<String> post(String path, String key, String body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(provider.baseUrl().resolve(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    headers.forEach(request::header);
    return send(request.build());
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(provider.baseUrl().resolve(path)).GET().build());
  }

  HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> charge(String key, String body) throws IOException, InterruptedException {
    return post(ChargesEndpoint.PATH, key, body);
  }

  /** Charges in EUR; the id of the charge the key made, now or on an earlier call. */
  String chargeId(String key, String paymentId, long amountCents)
      throws IOException, InterruptedException {
    HttpResponse<String> response = charge(key, chargeBody(paymentId, amountCents));
    assertThat(response.statusCode()).isIn(200, 201);
    return json(response).get("chargeId").asText();
  }

  HttpResponse<String> refund(String key, String body) throws IOException, InterruptedException {
    return post(RefundsEndpoint.PATH, key, body);
  }

  static String chargeBody(String paymentId, long amountCents) {
    return "{\"paymentId\":\""
        + paymentId
        + "\",\"amountCents\":"
        + amountCents
        + ",\"currency\":\"EUR\"}";
  }

  static String refundBody(String chargeId, long amountCents) {
    return "{\"chargeId\":\"" + chargeId + "\",\"amountCents\":" + amountCents + "}";
  }

  static JsonNode json(HttpResponse<String> response) {
    return json(response.body());
  }

  static JsonNode json(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException("not JSON: " + body, e);
    }
  }

  /** The {@code error} code of a refusal. */
  static String error(HttpResponse<String> response) {
    return json(response).get("error").asText();
  }

  /** The same call from {@code callers} threads released at once; every answer, in call order. */
  static List<HttpResponse<String>> concurrently(int callers, Callable<HttpResponse<String>> call)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return call.call();
                }));
      }
      go.countDown();
      List<HttpResponse<String>> responses = new ArrayList<>();
      for (Future<HttpResponse<String>> pending : calls) {
        responses.add(pending.get());
      }
      return responses;
    } finally {
      pool.shutdownNow();
    }
  }
}
