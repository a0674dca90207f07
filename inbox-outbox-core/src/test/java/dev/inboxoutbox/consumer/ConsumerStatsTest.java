package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
}
