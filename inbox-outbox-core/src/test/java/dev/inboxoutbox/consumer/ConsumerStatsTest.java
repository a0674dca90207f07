package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerStatsTest {

  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aPartitionStaysFailingWhileAnotherMakesProgress() {
    ConsumerStats stats = new ConsumerStats();
    stats.failed(List.of(P0), "database down", true, T0);
    stats.failed(List.of(P0), "database still down", true, T0.plusSeconds(5));
    stats.succeeded(List.of(P1));

    ConsumerStats.Failure failure = stats.failure().orElseThrow();
    assertThat(failure.since()).isEqualTo(T0);
    assertThat(failure.consecutiveFailures()).isEqualTo(2);
    assertThat(failure.lastError()).isEqualTo("database still down");
    assertThat(failure.partitions()).containsExactly(P0);
  }

  @Test
  void progressOnTheFailingPartitionEndsTheFailure() {
    ConsumerStats stats = new ConsumerStats();
    stats.failed(List.of(P0, P1), "database down", true, T0);
    stats.succeeded(List.of(P0, P1));

    assertThat(stats.failure()).isEmpty();
  }

  @Test
  void aRetriableFailureIsStuckOnlyAfterTheThreshold() {
    ConsumerStats stats = new ConsumerStats();
    stats.failed(List.of(P0), "database down", true, T0);
    ConsumerStats.Failure failure = stats.failure().orElseThrow();

    assertThat(failure.stuck(Duration.ofMinutes(1), T0.plusSeconds(59))).isFalse();
    assertThat(failure.stuck(Duration.ofMinutes(1), T0.plusSeconds(60))).isTrue();
  }

  @Test
  void aFailureNoRetryFixesIsStuckAtOnce() {
    ConsumerStats stats = new ConsumerStats();
    stats.failed(List.of(P0), "database down", true, T0);
    stats.failed(List.of(P1), "dead letter not authorized", false, T0.plusSeconds(1));
    ConsumerStats.Failure failure = stats.failure().orElseThrow();

    assertThat(failure.retriable()).isFalse();
    assertThat(failure.lastError()).isEqualTo("dead letter not authorized");
    assertThat(failure.stuck(Duration.ofMinutes(1), T0.plusSeconds(1))).isTrue();
  }

  @Test
  void aRevokedPartitionIsNoLongerReported() {
    ConsumerStats stats = new ConsumerStats();
    stats.failed(List.of(P0), "database down", true, T0);
    stats.forget(List.of(P0));

    assertThat(stats.failure()).isEmpty();
  }

  @Test
  void everyStageStartsAtZeroAndIsListedInTheOrderItRuns() {
    ConsumerStats stats = new ConsumerStats();

    assertThat(stats.stageNanos().keySet())
        .containsExactly(
            ConsumerStats.Stage.POLL,
            ConsumerStats.Stage.VALIDATION,
            ConsumerStats.Stage.CLAIM,
            ConsumerStats.Stage.HANDLER,
            ConsumerStats.Stage.CORRECTION,
            ConsumerStats.Stage.COMMIT,
            ConsumerStats.Stage.DEAD_LETTERS,
            ConsumerStats.Stage.OFFSET_COMMIT);
    assertThat(stats.stageNanos().values()).containsOnly(0L);
  }

  @Test
  void stageTimesAddUpPerStageAndTheMapIsAReadOnlyCopy() {
    ConsumerStats stats = new ConsumerStats();
    stats.stage(ConsumerStats.Stage.CLAIM, 1_000);
    stats.stage(ConsumerStats.Stage.CLAIM, 500);
    stats.stage(ConsumerStats.Stage.COMMIT, 42);

    var before = stats.stageNanos();
    stats.stage(ConsumerStats.Stage.CLAIM, 1);

    assertThat(before)
        .containsEntry(ConsumerStats.Stage.CLAIM, 1_500L)
        .containsEntry(ConsumerStats.Stage.COMMIT, 42L)
        .containsEntry(ConsumerStats.Stage.HANDLER, 0L);
    assertThat(stats.stageNanos(ConsumerStats.Stage.CLAIM)).isEqualTo(1_501);
    assertThatThrownBy(() -> before.put(ConsumerStats.Stage.POLL, 1L))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aStageTimedSinceAMomentGetsTheTimeUpToNowAndReturnsNow() throws Exception {
    ConsumerStats stats = new ConsumerStats();
    long started = System.nanoTime();
    Thread.sleep(5);

    long now = stats.stageSince(ConsumerStats.Stage.VALIDATION, started);

    assertThat(stats.stageNanos(ConsumerStats.Stage.VALIDATION))
        .isEqualTo(now - started)
        .isGreaterThanOrEqualTo(5_000_000);
  }

  @Test
  void aBatchThatHasNotFinishedCountsAsAFailureOnlyOnceItIsOverdue() {
    ConsumerStats stats = new ConsumerStats(Duration.ofMinutes(1));
    stats.batchStarted(Set.of(P0), 3, T0);

    assertThat(stats.failure(T0.plusSeconds(59))).as("a batch still within time").isEmpty();
    ConsumerStats.Failure overdue = stats.failure(T0.plusSeconds(60)).orElseThrow();
    assertThat(overdue.since()).isEqualTo(T0);
    assertThat(overdue.partitions()).containsExactly(P0);
    assertThat(overdue.lastError()).startsWith("a batch of 3 records has not finished for 60 s");
    assertThat(overdue.stuck(Duration.ofMinutes(1), T0.plusSeconds(60))).isTrue();

    stats.batchEnded();
    assertThat(stats.failure(T0.plusSeconds(120))).isEmpty();
  }

  @Test
  void anOverdueBatchJoinsThePartitionsThatFail() {
    ConsumerStats stats = new ConsumerStats(Duration.ofSeconds(10));
    stats.failed(List.of(P1), "database down", true, T0.plusSeconds(5));
    stats.batchStarted(Set.of(P0), 1, T0);

    ConsumerStats.Failure failure = stats.failure(T0.plusSeconds(20)).orElseThrow();
    assertThat(failure.since()).isEqualTo(T0);
    assertThat(failure.partitions()).containsExactlyInAnyOrder(P0, P1);
    assertThat(failure.consecutiveFailures()).isEqualTo(1);
    assertThat(failure.lastError()).contains("has not finished");
  }
}
