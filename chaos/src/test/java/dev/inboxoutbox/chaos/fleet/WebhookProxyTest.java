package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy in front of the payment-consumer instances, over real sockets: a delivery reaches an
 * instance that takes it even when others are starting or gone, and 503 (so the provider retries)
 * only when none does.
 */
class WebhookProxyTest {

  private static final String BODY = "{\"id\":\"evt_1\",\"type\":\"charge.succeeded\"}";
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final List<Headers> headersReceived = new CopyOnWriteArrayList<>();

  @AfterEach
  void stopServers() {
    servers.forEach(server -> server.stop(0));
  }

  /** A closed proxy keeps no thread that would hold the iox JVM open after its run. */
  @Test
  void aClosedProxyLeavesNoThreadBehind() throws Exception {
    Target serving = new Target(true, true, listeningPort(200));
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    assertThat(deliver(List.of(serving))).isEqualTo(200);

    await("the proxy's threads gone")
        .atMost(Duration.ofSeconds(10))
        .pollInSameThread()
        .untilAsserted(
            () ->
                assertThat(Thread.getAllStackTraces().keySet())
                    .filteredOn(thread -> !before.contains(thread))
                    .filteredOn(thread -> !thread.isDaemon())
                    .isEmpty());
  }

  @Test
  void aDeliveryGoesToTheServingInstanceWhileAnotherIsStillStarting() throws Exception {
    Target starting = new Target(true, false, refusingPort());
    Target serving = new Target(true, true, listeningPort(200));
    assertThat(deliver(List.of(starting, serving))).isEqualTo(200);
    assertThat(received).containsExactly(BODY + " signed t=1,v1=abc");
  }

  @Test
  void aRefusedConnectionMovesTheDeliveryToTheNextLiveInstance() throws Exception {
    Target killedMidRequest = new Target(true, true, refusingPort());
    Target justStarted = new Target(true, false, listeningPort(200));
    assertThat(deliver(List.of(killedMidRequest, justStarted))).isEqualTo(200);
    assertThat(received).hasSize(1);
  }

  /**
   * The proxy stands in for a load balancer, which passes a request's headers on: the provider's
   * trace context must reach the instance, or the webhook's span starts a trace of its own.
   */
  @Test
  void theProvidersTraceContextReachesTheInstance() throws Exception {
    Target serving = new Target(true, true, listeningPort(200));
    assertThat(deliver(List.of(serving))).isEqualTo(200);
    assertThat(headersReceived).hasSize(1);
    Headers headers = headersReceived.get(0);
    assertThat(headers.getFirst("traceparent")).isEqualTo(TRACEPARENT);
    assertThat(headers.getFirst("tracestate")).isEqualTo("provider=1");
    assertThat(headers.getFirst("Provider-Signature")).isEqualTo("t=1,v1=abc");
  }

  @Test
  void theInstancesAnswerIsPassedOnToTheProvider() throws Exception {
    Target rejecting = new Target(true, true, listeningPort(401));
    assertThat(deliver(List.of(rejecting))).isEqualTo(401);
  }

  @Test
  void withNoInstanceTakingItTheProviderIsToldToRetry() throws Exception {
    Target refusing = new Target(true, true, refusingPort());
    Target dead = new Target(false, false, listeningPort(200));
    assertThat(deliver(List.of(refusing, dead))).isEqualTo(503);
    assertThat(received).isEmpty();
  }

  private record Target(boolean alive, boolean ready, int port) implements WebhookProxy.Target {}

  private static int deliver(List<Target> targets) throws IOException, InterruptedException {
    try (WebhookProxy proxy = new WebhookProxy(targets)) {
      HttpRequest request =
          HttpRequest.newBuilder(proxy.url())
              .header("Provider-Signature", "t=1,v1=abc")
              .header("Content-Type", "application/json")
              .header("traceparent", TRACEPARENT)
              .header("tracestate", "provider=1")
              .POST(HttpRequest.BodyPublishers.ofString(BODY))
              .build();
      return HttpClient.newHttpClient()
          .send(request, HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }
  }

  /**
   * A port nobody listens on: connecting to it is refused, like a JVM still starting or just
   * killed.
   */
  private static int refusingPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private int listeningPort(int status) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext(
        "/webhooks/provider",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          received.add(
              body + " signed " + exchange.getRequestHeaders().getFirst("Provider-Signature"));
          headersReceived.add(exchange.getRequestHeaders());
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.start();
    servers.add(server);
    return server.getAddress().getPort();
  }
}
