package dev.inboxoutbox.spring;

import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** Sums of every retention run since start-up, for metrics. */
public final class RetentionTotals implements Consumer<RetentionCleaner.Report> {

  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong outcomesPruned = new AtomicLong();
  private final AtomicLong keysDeleted = new AtomicLong();
  private final AtomicLong outboxRowsDeleted = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();
  private final AtomicReference<RetentionCleaner.Report> last = new AtomicReference<>();

  @Override
  public void accept(RetentionCleaner.Report report) {
    runs.incrementAndGet();
    outcomesPruned.addAndGet(report.outcomesPruned());
    keysDeleted.addAndGet(report.keysDeleted());
    outboxRowsDeleted.addAndGet(report.outboxRowsDeleted());
    nanos.addAndGet(report.took().toNanos());
    last.set(report);
  }

  public long runs() {
    return runs.get();
  }

  public long outcomesPruned() {
    return outcomesPruned.get();
  }

  public long keysDeleted() {
    return keysDeleted.get();
  }

  public long outboxRowsDeleted() {
    return outboxRowsDeleted.get();
  }

  public double secondsSpent() {
    return nanos.get() / 1e9;
  }

  public Optional<RetentionCleaner.Report> last() {
    return Optional.ofNullable(last.get());
  }

  /** How far past its expiry the oldest key still is: 0 when cleanup keeps up. */
  public double overdueSeconds() {
    return last()
        .flatMap(RetentionCleaner.Report::oldestKeyExpiry)
        .map(expiry -> Math.max(0, Duration.between(expiry, Instant.now()).toMillis() / 1000.0))
        .orElse(0.0);
  }
}
