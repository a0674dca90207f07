package dev.inboxoutbox.iox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Requests to an order-consumer, as a client or a Prometheus server sends them. */
final class OrderRequests {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private OrderRequests() {}

  /** One order of one item under {@code key}; with {@code traceparent} when not null. */
  static HttpResponse<String> placeOrder(int port, String key, String traceparent)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"customerId\":\"c-1\",\"items\":[{\"sku\":\"SKU-01\",\"qty\":1,"
                        + "\"unitPriceCents\":1250}]}"));
    if (traceparent != null) {
      request.header("traceparent", traceparent);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The service's meters in Prometheus' text format, as a Prometheus server scrapes them. */
  static HttpResponse<String> scrape(int port) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/prometheus"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
