package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.retention.RetentionCleaner.Backlog;
import dev.inboxoutbox.retention.RetentionCleaner.Step;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the retention meters show for the latest run's report. */
class RetentionMetersTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RetentionTotals totals = new RetentionTotals();

  @Test
  void overdueSecondsIsTheStepFurthestBehindAndRowsAreCountedPerStep() {
    InboxOutboxMetricsAutoConfiguration.bindRetention(registry, totals);
    Instant now = Instant.now();

    totals.accept(
        report(
            false,
            new Backlog(Backlog.COUNT_LIMIT, Optional.of(now.minus(Duration.ofMinutes(10)))),
            new Backlog(40, Optional.of(now.minus(Duration.ofHours(1)))),
            new Backlog(0, Optional.of(now.plus(Duration.ofDays(1))))));

    assertThat(registry.get("iox.retention.overdue.seconds").gauge().value())
        .as("bodies, an hour behind")
        .isBetween(3600.0, 3660.0);
    assertThat(registry.get("iox.retention.overdue.rows").tag("step", "keys").gauge().value())
        .isEqualTo(Backlog.COUNT_LIMIT);
    assertThat(registry.get("iox.retention.overdue.rows").tag("step", "bodies").gauge().value())
        .isEqualTo(40);
    assertThat(registry.get("iox.retention.overdue.rows").tag("step", "outbox").gauge().value())
        .isZero();
    assertThat(registry.get("iox.retention.runs.behind").functionCounter().count()).isOne();
  }

  @Test
  void nothingIsOverdueBeforeTheFirstRunOrWhenNothingIsDue() {
    InboxOutboxMetricsAutoConfiguration.bindRetention(registry, totals);
    assertThat(registry.get("iox.retention.overdue.seconds").gauge().value()).isZero();

    Backlog nothingLeft = new Backlog(0, Optional.empty());
    totals.accept(report(true, nothingLeft, nothingLeft, nothingLeft));

    assertThat(registry.get("iox.retention.overdue.seconds").gauge().value()).isZero();
    assertThat(registry.get("iox.retention.runs.behind").functionCounter().count()).isZero();
  }

  private static RetentionCleaner.Report report(
      boolean complete, Backlog keys, Backlog bodies, Backlog outbox) {
    return new RetentionCleaner.Report(
        0,
        0,
        0,
        3,
        Duration.ofMillis(5),
        complete,
        Map.of(
            Step.DELETE_EXPIRED_KEYS,
            keys,
            Step.PRUNE_OUTCOME_BODIES,
            bodies,
            Step.DELETE_PUBLISHED_OUTBOX_ROWS,
            outbox));
  }
}
