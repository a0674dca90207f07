package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.inboxoutbox.benchmarks.ConsumerBench.Clock;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsumerRunClockTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private void elapse(long millis) {
    now.addAndGet(millis * 1_000_000L);
  }

  @Test
  void startsOnceEveryConsumerHasRecordsAndLeavesOutWhatWasDoneBefore() {
    Clock clock = new Clock(3, now::get);
    Object first = new Object();
    Object second = new Object();
    Object third = new Object();

    clock.firstRecord(first);
    elapse(500);
    // The group is still forming: one member holds every partition.
    clock.done(5_000);
    clock.firstRecord(first);
    clock.firstRecord(second);
    elapse(500);
    clock.done(1_000);
    clock.firstRecord(third);
    elapse(1_000);
    clock.done(30_000);

    assertThat(clock.rate())
        .as("30,000 records in the second after the third member received its first records")
        .isCloseTo(30_000, within(0.001));
  }

  @Test
  void oneConsumerStartsAtItsFirstRecord() {
    Clock clock = new Clock(1, now::get);
    Object only = new Object();

    clock.firstRecord(only);
    elapse(2_000);
    clock.done(10_000);

    assertThat(clock.rate()).isCloseTo(5_000, within(0.001));
  }

  @Test
  void aConsumerThatNeverReceivedRecordsLeavesTheClockAtTheFirstRecord() {
    Clock clock = new Clock(2, now::get);

    clock.firstRecord(new Object());
    elapse(4_000);
    clock.done(10_000);

    assertThat(clock.rate())
        .as("one member drained every partition before the other joined")
        .isCloseTo(2_500, within(0.001));
  }
}
