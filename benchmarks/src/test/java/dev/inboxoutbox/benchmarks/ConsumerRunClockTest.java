package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.inboxoutbox.benchmarks.ConsumerBench.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ConsumerRunClockTest {

  private static final TopicPartition P0 = new TopicPartition("bench", 0);
  private static final TopicPartition P1 = new TopicPartition("bench", 1);
  private static final TopicPartition P2 = new TopicPartition("bench", 2);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private void elapse(long millis) {
    now.addAndGet(millis * 1_000_000L);
  }

  @Test
  void startsOnceEveryConsumerHasRecordsAndLeavesOutWhatWasDoneBefore() {
    Clock clock = new Clock(3, Map.of(P0, 12_000L, P1, 12_000L, P2, 12_000L), now::get);
    Object first = new Object();
    Object second = new Object();
    Object third = new Object();

    clock.firstRecord(first);
    elapse(500);
    // The group is still forming: one member holds every partition.
    clock.done(Map.of(P0, 2_000L, P1, 2_000L, P2, 1_000L));
    clock.firstRecord(first);
    clock.firstRecord(second);
    elapse(500);
    clock.done(Map.of(P1, 3_000L));
    clock.firstRecord(third);
    elapse(1_000);
    clock.done(Map.of(P0, 12_000L, P1, 12_000L, P2, 12_000L));

    assertThat(clock.rate())
        .as("30,000 records in the second after the third member received its first records")
        .isCloseTo(30_000, within(0.001));
  }

  @Test
  void oneConsumerStartsAtItsFirstRecord() {
    Clock clock = new Clock(1, Map.of(P0, 10_000L), now::get);
    Object only = new Object();

    clock.firstRecord(only);
    elapse(2_000);
    clock.done(Map.of(P0, 10_000L));

    assertThat(clock.rate()).isCloseTo(5_000, within(0.001));
  }

  @Test
  void aConsumerThatNeverReceivedRecordsLeavesTheClockAtTheFirstRecord() {
    Clock clock = new Clock(2, Map.of(P0, 5_000L, P1, 5_000L), now::get);

    clock.firstRecord(new Object());
    elapse(4_000);
    clock.done(Map.of(P0, 5_000L, P1, 5_000L));

    assertThat(clock.rate())
        .as("one member drained every partition before the other joined")
        .isCloseTo(2_500, within(0.001));
  }

  @Test
  void aBatchReadAgainAfterARebalanceIsNotCountedTwice() {
    Clock clock = new Clock(1, Map.of(P0, 1_000L, P1, 1_000L), now::get);

    clock.done(Map.of(P0, 500L, P1, 500L));
    // P1's offsets were not committed before it moved: its new owner reads 0-499 again.
    clock.done(Map.of(P1, 500L));
    clock.done(Map.of(P0, 1_000L));

    assertThat(clock.recordsDone()).isEqualTo(1_500);
    assertThat(clock.progress())
        .isEqualTo(
            "bench-0 done up to offset 1000 of 1000, bench-1 done up to offset 500 of 1000"
                + " (1500 of 2000 records)");
  }

  @Test
  void aBatchCountsUpToTheOffsetAfterItsLastRecordOfEachPartition() {
    List<ConsumerRecord<String, byte[]>> batch =
        List.of(
            new ConsumerRecord<>("bench", 0, 7, "a", new byte[0]),
            new ConsumerRecord<>("bench", 1, 3, "b", new byte[0]),
            new ConsumerRecord<>("bench", 0, 8, "c", new byte[0]));

    assertThat(ConsumerBench.nextOffsets(batch)).isEqualTo(Map.of(P0, 9L, P1, 4L));
  }

  @Test
  void aPartitionOutsideTheRunIsRefused() {
    Clock clock = new Clock(1, Map.of(P0, 10L), now::get);

    assertThatThrownBy(() -> clock.done(Map.of(P2, 5L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bench-2");
  }
}
