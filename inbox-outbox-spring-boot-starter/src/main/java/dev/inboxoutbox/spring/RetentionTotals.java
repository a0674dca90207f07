package dev.inboxoutbox.spring;

import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** Sums of every retention run since start-up, and the backlog the latest left, for metrics. */
final class RetentionTotals implements Consumer<RetentionCleaner.Report> {

  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong runsBehind = new AtomicLong();
  private final AtomicLong outcomesPruned = new AtomicLong();
  private final AtomicLong keysDeleted = new AtomicLong();
  private final AtomicLong outboxRowsDeleted = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();
  private final AtomicReference<RetentionCleaner.Report> last = new AtomicReference<>();

  @Override
  public void accept(RetentionCleaner.Report report) {
    runs.incrementAndGet();
    if (!report.complete()) {
      runsBehind.incrementAndGet();
    }
    outcomesPruned.addAndGet(report.outcomesPruned());
    keysDeleted.addAndGet(report.keysDeleted());
    outboxRowsDeleted.addAndGet(report.outboxRowsDeleted());
    nanos.addAndGet(report.took().toNanos());
    last.set(report);
  }

  public long runs() {
    return runs.get();
  }

  /** Runs whose budget was spent with work left (each followed at once by the next). */
  public long runsBehind() {
    return runsBehind.get();
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

  /**
   * How far past due the oldest row left by the step furthest behind is now: 0 when cleanup keeps
   * up. Between two runs it grows up to about one interval, as rows fall due and wait for the next.
   */
  public double overdueSeconds() {
    return last().map(report -> seconds(report.overdue(Instant.now()))).orElse(0.0);
  }

  /** Overdue rows the latest run left for {@code step}, counted up to the backlog's limit. */
  public long overdueRows(RetentionCleaner.Step step) {
    return last().map(report -> report.backlog().get(step).overdueRows()).orElse(0L);
  }

  static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }

  /**
   * The step as metrics and health name it: keys, bodies, outbox. Here, not in the health
   * indicator: the meters are bound without Spring Boot's health module on the class path.
   */
  static String stepName(RetentionCleaner.Step step) {
    return switch (step) {
      case DELETE_EXPIRED_KEYS -> "keys";
      case PRUNE_OUTCOME_BODIES -> "bodies";
      case DELETE_PUBLISHED_OUTBOX_ROWS -> "outbox";
    };
  }
}
