package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.relay.RelayListener.BatchTimings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelayStagesTest {

  private static final RelayStages.Stage BETWEEN_BATCHES = RelayStages.STAGES.get(1);
  private static final RelayStages.Stage SEND = RelayStages.STAGES.get(2);

  @Test
  void aPhasesFirstBatchCarriesNoWaitFromBeforeThePhase() {
    RelayStages stages = new RelayStages();
    stages.reset();

    stages.add(batch(10, Duration.ofSeconds(3)));
    stages.add(batch(10, Duration.ofMillis(20)));

    assertThat(stages.totalMillis(BETWEEN_BATCHES)).isEqualTo(20.0);
    assertThat(stages.totalMillis(SEND)).isEqualTo(2.0);
    assertThat(stages.events()).isEqualTo(20);
  }

  @Test
  void batchesWithoutEventsAreNotCounted() {
    RelayStages stages = new RelayStages();
    stages.reset();

    stages.add(batch(0, Duration.ofMillis(5)));

    assertThat(stages.events()).isZero();
    assertThat(stages.totalMillis(SEND)).isZero();
  }

  private static BatchTimings batch(int events, Duration sinceLastBatch) {
    return new BatchTimings(
        events,
        events + 1,
        Duration.ofMillis(3),
        sinceLastBatch,
        Duration.ofMillis(1),
        Duration.ofMillis(4),
        Duration.ofMillis(5),
        Duration.ZERO,
        Duration.ofMillis(1));
  }
}
