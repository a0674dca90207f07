package dev.inboxoutbox.spring;

import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * DOWN once cleanup has fallen behind: the oldest row some step still has to remove is overdue by
 * more than {@code inbox-outbox.retention.overdue-threshold}. Runs that keep failing show here too,
 * since nothing is removed meanwhile and the overdue time keeps growing. UP otherwise, and before
 * the first run has reported. Details: the threshold, runs and runs that ended behind, and per step
 * the seconds overdue and the overdue rows (counted up to {@link
 * RetentionCleaner.Backlog#COUNT_LIMIT}; {@code overdueRowsCapped} says when there are more).
 */
final class RetentionHealthIndicator extends AbstractHealthIndicator {

  private final RetentionTotals totals;
  private final Duration threshold;

  RetentionHealthIndicator(RetentionTotals totals, Duration threshold) {
    super("retention health check failed");
    this.totals = totals;
    this.threshold = threshold;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder
        .withDetail("overdueThresholdSeconds", threshold.toSeconds())
        .withDetail("runs", totals.runs())
        .withDetail("runsBehind", totals.runsBehind());
    Optional<RetentionCleaner.Report> last = totals.last();
    if (last.isEmpty()) {
      builder.up().withDetail("state", "NO_RUN_YET");
      return;
    }
    Instant now = Instant.now();
    boolean behind = false;
    for (RetentionCleaner.Step step : RetentionCleaner.Step.values()) {
      RetentionCleaner.Backlog backlog = last.get().backlog().get(step);
      Duration overdue = backlog.overdue(now);
      behind |= overdue.compareTo(threshold) > 0;
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("overdueSeconds", overdue.toSeconds());
      details.put("overdueRows", backlog.overdueRows());
      details.put("overdueRowsCapped", backlog.countCapped());
      builder.withDetail(RetentionTotals.stepName(step), details);
    }
    builder.withDetail("state", behind ? "BEHIND" : "KEEPING_UP");
    if (behind) {
      builder.down();
    } else {
      builder.up();
    }
  }
}
