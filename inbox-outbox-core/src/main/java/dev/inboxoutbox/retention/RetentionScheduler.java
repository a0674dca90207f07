package dev.inboxoutbox.retention;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a {@link RetentionCleaner} every {@code interval} on one daemon thread; failures are logged and retried next time. */
public final class RetentionScheduler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetentionScheduler.class);

  private final RetentionCleaner cleaner;
  private final Duration interval;
  private final Consumer<RetentionReport> listener;
  private final ScheduledExecutorService executor;
  private final AtomicReference<RetentionReport> lastReport = new AtomicReference<>();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  public RetentionScheduler(RetentionCleaner cleaner, Duration interval, Consumer<RetentionReport> listener) {
    this.cleaner = Objects.requireNonNull(cleaner, "cleaner");
    this.interval = Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("retention interval must be positive");
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "iox-retention");
              thread.setDaemon(true);
              return thread;
            });
  }

  public RetentionScheduler start() {
    executor.scheduleWithFixedDelay(this::runOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  public Optional<RetentionReport> lastReport() {
    return Optional.ofNullable(lastReport.get());
  }

  public long runs() {
    return runs.get();
  }

  public long failures() {
    return failures.get();
  }

  private void runOnce() {
    try {
      RetentionReport report = cleaner.run();
      lastReport.set(report);
      runs.incrementAndGet();
      listener.accept(report);
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      log.warn("retention run failed; next attempt in {}: {}", interval, e.getMessage());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
