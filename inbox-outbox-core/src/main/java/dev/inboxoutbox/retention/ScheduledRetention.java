package dev.inboxoutbox.retention;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link RetentionCleaner} on one daemon thread: right after {@link #start()}, then {@code
 * interval} after each run that finished its work, so runs never overlap. A run that ended behind
 * is followed by the next one after only the cleaner's pause between batches: the schedule keeps
 * cleaning as long as there is a backlog. A failed run is logged and counted, and the next one
 * comes after {@code interval}.
 */
final class ScheduledRetention implements RetentionCleaner.Schedule {

  private static final Logger log = LoggerFactory.getLogger(ScheduledRetention.class);

  /** A batch already sent is not interruptible; close waits for it this long. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final RetentionCleaner cleaner;
  private final Duration interval;
  private final Consumer<RetentionCleaner.Report> listener;
  private final ScheduledExecutorService executor;
  private final AtomicReference<RetentionCleaner.Report> lastReport = new AtomicReference<>();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private volatile Thread worker;
  private boolean started;
  private boolean closed;

  ScheduledRetention(
      RetentionCleaner cleaner, Duration interval, Consumer<RetentionCleaner.Report> listener) {
    this.cleaner = Objects.requireNonNull(cleaner, "cleaner");
    this.interval = Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("retention interval must be positive; was " + interval);
    }
    this.listener = Objects.requireNonNull(listener, "listener");
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "iox-retention");
              thread.setDaemon(true);
              worker = thread;
              return thread;
            });
  }

  /** Schedules the runs; the first starts at once. */
  synchronized ScheduledRetention start() {
    if (started || closed) {
      throw new IllegalStateException(
          "retention scheduler already " + (closed ? "closed" : "started"));
    }
    started = true;
    executor.execute(this::runOnce);
    return this;
  }

  @Override
  public Optional<RetentionCleaner.Report> lastReport() {
    return Optional.ofNullable(lastReport.get());
  }

  @Override
  public long runs() {
    return runs.get();
  }

  @Override
  public long failures() {
    return failures.get();
  }

  private void runOnce() {
    Duration next = interval;
    try {
      RetentionCleaner.Report report = cleaner.run();
      lastReport.set(report);
      runs.incrementAndGet();
      if (!report.complete()) {
        next = cleaner.pauseBetweenBatches();
      }
      try {
        listener.accept(report);
      } catch (RuntimeException e) {
        log.warn("retention report listener failed", e);
      }
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      log.warn("retention run failed; next attempt in {}", interval, e);
    } finally {
      scheduleNext(next);
    }
  }

  private void scheduleNext(Duration delay) {
    synchronized (this) {
      if (closed) {
        return;
      }
    }
    try {
      executor.schedule(this::runOnce, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      if (!executor.isShutdown()) {
        throw e;
      }
      // Closed between the check and the call: nothing more to run.
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    executor.shutdownNow();
    if (Thread.currentThread() == worker) {
      return; // closed from the listener: the run ends as soon as this call returns
    }
    try {
      if (!executor.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("retention run did not stop within {}", STOP_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
