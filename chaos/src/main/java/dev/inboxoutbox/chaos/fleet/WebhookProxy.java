package dev.inboxoutbox.chaos.fleet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The provider has one webhook URL; the payment-consumer instances come and go. This forwards each
 * delivery to a live instance, and answers 503 when none takes it, so the provider retries later.
 */
public final class WebhookProxy implements AutoCloseable {

  static {
    // This proxy starts the JVM's first JDK server, before the provider simulator: without it every
    // charge answer waited ~40 ms for a delayed ACK, capping the payment chain at ~40 charges/s.
    PaymentProviderSimulator.useNoDelayForJdkHttpServers();
  }

  /** A payment-consumer instance as the proxy sees it. */
  interface Target {
    /** The process runs (it may still be starting and refuse connections). */
    boolean alive();

    /** The instance serves: its health is UP. */
    boolean ready();

    int port();
  }

  /**
   * Headers of the hop, not of the request: a load balancer passes the others on (the signature,
   * the trace context), and the JDK client sets these itself or refuses them.
   */
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "connection",
          "content-length",
          "expect",
          "host",
          "keep-alive",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");

  private final HttpServer server;
  private final ExecutorService requestThreads = Executors.newFixedThreadPool(4);
  private final List<? extends Target> targets;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  public WebhookProxy(List<? extends Target> targets) throws IOException {
    this.targets = targets;
    this.server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext("/", this::forward);
    server.setExecutor(requestThreads);
    server.start();
  }

  public URI url() {
    return URI.create("http://localhost:" + server.getAddress().getPort() + "/webhooks/provider");
  }

  /**
   * Tries the serving instances first, in random order, then any other live one: an instance that
   * is still starting refuses connections, and each refusal answered as 503 makes the provider sign
   * and send the delivery again after a backoff.
   */
  private void forward(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes();
    List<Target> candidates = new ArrayList<>(targets.stream().filter(Target::alive).toList());
    Collections.shuffle(candidates, ThreadLocalRandom.current());
    candidates.sort(Comparator.comparing(target -> !target.ready()));
    int status = 503;
    for (Target target : candidates) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(
                  URI.create("http://localhost:" + target.port() + exchange.getRequestURI()))
              .timeout(Duration.ofSeconds(5))
              .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      exchange
          .getRequestHeaders()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                  values.forEach(value -> request.header(name, value));
                }
              });
      try {
        status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        break;
      } catch (IOException e) {
        status = 503; // not listening (yet) or killed mid-request: the next candidate may take it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    exchange.sendResponseHeaders(status, -1);
    try (OutputStream ignored = exchange.getResponseBody()) {
      // empty body
    }
  }

  /** Stops the server and its request threads, which would otherwise hold the JVM open. */
  @Override
  public void close() {
    server.stop(0);
    requestThreads.shutdownNow();
  }
}
