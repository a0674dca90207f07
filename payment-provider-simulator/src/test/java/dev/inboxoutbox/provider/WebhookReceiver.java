package dev.inboxoutbox.provider;

import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.inboxoutbox.webhook.WebhookSignature;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** A local endpoint that records every webhook attempt; it can refuse the first few. */
final class WebhookReceiver implements AutoCloseable {

  /** One attempt as received, with the status it was answered with. */
  record Attempt(
      String signature,
      String body,
      int answeredWith,
      Instant receivedAt,
      String traceparent,
      String tracestate) {
    byte[] bodyBytes() {
      return body.getBytes(StandardCharsets.UTF_8);
    }
  }

  static {
    // The first JDK server of the JVM fixes this setting; without it every answer waits ~40 ms
    // (Nagle's algorithm against delayed ACKs).
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  private final AtomicInteger refusalsLeft = new AtomicInteger();

  WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.setExecutor(threads);
    server.createContext(
        "/hooks",
        exchange -> {
          try (exchange;
              InputStream in = exchange.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int status = refusalsLeft.getAndUpdate(left -> Math.max(0, left - 1)) > 0 ? 500 : 200;
            attempts.add(
                new Attempt(
                    exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                    body,
                    status,
                    Instant.now(),
                    exchange.getRequestHeaders().getFirst("traceparent"),
                    exchange.getRequestHeaders().getFirst("tracestate")));
            exchange.sendResponseHeaders(status, -1);
          }
        });
    server.start();
  }

  URI url() {
    return URI.create("http://localhost:" + server.getAddress().getPort() + "/hooks");
  }

  /** Answers the next {@code count} attempts with a 500. */
  void refuseNext(int count) {
    refusalsLeft.set(count);
  }

  List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  List<Attempt> delivered() {
    return attempts.stream().filter(attempt -> attempt.answeredWith() == 200).toList();
  }

  /** Waits until {@code done} holds for the attempts so far, and answers them. */
  List<Attempt> awaitAttempts(Predicate<List<Attempt>> done, Duration timeout) {
    return await("webhook attempts at the receiver")
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(20))
        .until(this::attempts, done);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
