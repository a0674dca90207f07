package dev.inboxoutbox.provider;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The JDK HTTP server with the simulator's routes; anything else is a JSON {@code 404}. */
final class ProviderHttpServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProviderHttpServer.class);

  private final HttpServer server;
  private final ExecutorService requestThreads;

  private ProviderHttpServer(HttpServer server, ExecutorService requestThreads) {
    this.server = server;
    this.requestThreads = requestThreads;
  }

  static ProviderHttpServer start(
      String host,
      int port,
      int threads,
      JsonResponses responses,
      ChargesEndpoint charges,
      RefundsEndpoint refunds,
      LedgerEndpoint ledger) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on " + host + ":" + port, e);
    }
    // Several request threads, so concurrent requests with one key really race for it.
    AtomicInteger counter = new AtomicInteger();
    ExecutorService requestThreads =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "provider-http-" + counter.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(requestThreads);
    server.createContext(ChargesEndpoint.PATH, exchange -> serve(exchange, charges));
    server.createContext(RefundsEndpoint.PATH, exchange -> serve(exchange, refunds));
    server.createContext(LedgerEndpoint.PATH, exchange -> serve(exchange, ledger));
    server.createContext("/", exchange -> serve(exchange, responses::notFound));
    server.start();
    return new ProviderHttpServer(server, requestThreads);
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    requestThreads.shutdownNow();
    try {
      requestThreads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void serve(HttpExchange exchange, Endpoint endpoint) {
    try {
      endpoint.handle(exchange);
    } catch (IOException e) {
      // Reading the request or writing the answer failed: the client went away (a chaos run kills
      // the services that call). Expected, so one line without a stack trace.
      log.info(
          "{} {} answered nothing: {}",
          exchange.getRequestMethod(),
          exchange.getRequestURI(),
          e.toString());
      answerServerError(exchange);
    } catch (RuntimeException e) {
      log.warn("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      answerServerError(exchange);
    } finally {
      exchange.close();
    }
  }

  /** The JDK server would silently drop the connection; a 500 tells the client to retry. */
  private static void answerServerError(HttpExchange exchange) {
    try {
      exchange.sendResponseHeaders(500, -1);
    } catch (IOException | RuntimeException ignored) {
      // Headers were already sent; the client sees a cut response and retries.
    }
  }
}
