package dev.inboxoutbox.provider;

import dev.inboxoutbox.webhook.WebhookSignature;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers webhook events at-least-once, with the imperfections receivers must survive: a share of
 * events is delivered twice, every copy waits a random delay (so events overtake each other on a
 * small thread pool), and a copy that is not answered with a 2xx is retried with a doubling backoff
 * until it is. Every attempt is signed afresh, so a retry after a long outage is not stale.
 */
final class WebhookDispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);

  private final WebhookSignature signature;
  private final double duplicateShare;
  private final Duration delayMin;
  private final Duration delayMax;
  private final Duration retryMin;
  private final Duration retryMax;
  private final Duration requestTimeout;
  private final Random random;
  private final HttpClient http;
  private final ScheduledThreadPoolExecutor executor;
  private final ConcurrentLinkedQueue<WebhookEvent> published = new ConcurrentLinkedQueue<>();
  private volatile URI target;

  private final AtomicLong events = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final AtomicLong pending = new AtomicLong();

  WebhookDispatcher(
      WebhookSignature signature,
      URI target,
      double duplicateShare,
      Duration delayMin,
      Duration delayMax,
      Duration retryMin,
      Duration retryMax,
      int threads,
      long seed) {
    this.signature = signature;
    this.target = target;
    this.duplicateShare = duplicateShare;
    this.delayMin = delayMin;
    this.delayMax = delayMax;
    this.retryMin = retryMin;
    this.retryMax = retryMax;
    this.requestTimeout = Duration.ofSeconds(5);
    this.random = new Random(seed);
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    this.executor = new ScheduledThreadPoolExecutor(threads, daemonThreads());
    this.executor.setRemoveOnCancelPolicy(true);
  }

  void target(URI target) {
    this.target = target;
  }

  URI target() {
    return target;
  }

  /**
   * Schedules the event's delivery (and, for a share of events, a duplicate), each copy with the
   * trace context of the request that caused the event.
   */
  void publish(WebhookEvent event, TraceContext trace) {
    published.add(event);
    events.incrementAndGet();
    int copies = random.nextDouble() < duplicateShare ? 2 : 1;
    if (copies == 2) {
      duplicates.incrementAndGet();
    }
    for (int copy = 0; copy < copies; copy++) {
      pending.incrementAndGet();
      schedule(event, trace, 0, randomDelay());
    }
  }

  List<WebhookEvent> published() {
    return List.copyOf(published);
  }

  WebhookStats stats() {
    return new WebhookStats(
        events.get(),
        duplicates.get(),
        attempts.get(),
        deliveries.get(),
        retries.get(),
        pending.get());
  }

  private void schedule(
      WebhookEvent event, TraceContext trace, int failedAttempts, Duration delay) {
    if (executor.isShutdown()) {
      return;
    }
    executor.schedule(
        () -> attempt(event, trace, failedAttempts), delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void attempt(WebhookEvent event, TraceContext trace, int failedAttempts) {
    URI destination = target;
    attempts.incrementAndGet();
    String failure;
    if (destination == null) {
      failure = "no webhook URL configured";
    } else {
      try {
        byte[] body = event.bodyBytes();
        HttpRequest request =
            trace
                .addTo(HttpRequest.newBuilder(destination))
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header(WebhookSignature.HEADER, signature.sign(body, Instant.now()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status >= 200 && status < 300) {
          deliveries.incrementAndGet();
          pending.decrementAndGet();
          return;
        }
        failure = "answered " + status;
      } catch (IOException e) {
        failure = e.getClass().getSimpleName() + ": " + e.getMessage();
      } catch (InterruptedException e) {
        // Only close() interrupts: the simulator is going away, and so are its pending deliveries.
        Thread.currentThread().interrupt();
        return;
      }
    }
    retries.incrementAndGet();
    Duration backoff = backoff(failedAttempts);
    log.debug(
        "webhook {} ({}) not delivered: {}; retrying in {} ms",
        event.id(),
        event.type(),
        failure,
        backoff.toMillis());
    schedule(event, trace, failedAttempts + 1, backoff);
  }

  private Duration backoff(int failedAttempts) {
    long millis = retryMin.toMillis() << Math.min(failedAttempts, 20);
    return Duration.ofMillis(Math.min(millis, retryMax.toMillis()));
  }

  private Duration randomDelay() {
    long spread = delayMax.toMillis() - delayMin.toMillis();
    long extra = spread <= 0 ? 0 : (long) (random.nextDouble() * (spread + 1));
    return Duration.ofMillis(delayMin.toMillis() + extra);
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "provider-webhooks-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
