package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The closed loop: the load waits while too many orders are in flight and ends with its window. */
class ClosedLoopPacerTest {

  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicReference<Instant> clock = new AtomicReference<>(START);
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicReference<OrderCounts> counts =
      new AtomicReference<>(new OrderCounts(0L, 0L, 0L));

  /** Sleeping moves the test's clock; {@code whileAsleep} plays the pipeline meanwhile. */
  private ClosedLoopPacer pacer(Duration window, Runnable whileAsleep) {
    return new ClosedLoopPacer(
        START.plus(window),
        ClosedLoopPacer.minInFlightFor(window),
        counts::get,
        sent::get,
        clock::get,
        duration -> {
          clock.set(clock.get().plus(duration));
          whileAsleep.run();
        });
  }

  @Test
  void admitsAtOnceWhileFewOrdersAreInFlight() throws Exception {
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(120), () -> {});
    sent.set(ClosedLoopPacer.MIN_IN_FLIGHT - 1);

    assertThat(pacer.admit(sent.get())).isTrue();
    assertThat(clock.get()).isEqualTo(START);
  }

  @Test
  void holdsTheLoadUntilThePipelineDrains() throws Exception {
    ClosedLoopPacer pacer =
        pacer(
            Duration.ofSeconds(120),
            () -> {
              // Ten orders settle and two are rejected two seconds in.
              if (!clock.get().isBefore(START.plusSeconds(2))) {
                counts.set(new OrderCounts(100L, 10L, 2L));
              }
            });
    sent.set(ClosedLoopPacer.MIN_IN_FLIGHT + 5);

    assertThat(pacer.admit(sent.get())).isTrue();
    assertThat(clock.get()).isBetween(START.plusSeconds(2), START.plusMillis(2_100));
    assertThat(pacer.maxInFlightSeen()).isEqualTo(ClosedLoopPacer.MIN_IN_FLIGHT + 5);
  }

  @Test
  void aShorterWindowHoldsAProportionallySmallerBacklog() {
    assertThat(ClosedLoopPacer.minInFlightFor(Duration.ofSeconds(120)))
        .isEqualTo(ClosedLoopPacer.MIN_IN_FLIGHT);
    assertThat(ClosedLoopPacer.minInFlightFor(Duration.ofSeconds(60)))
        .isEqualTo(ClosedLoopPacer.MIN_IN_FLIGHT / 2);
    assertThat(ClosedLoopPacer.minInFlightFor(Duration.ofMinutes(10)))
        .as("a longer window drains no larger backlog")
        .isEqualTo(ClosedLoopPacer.MIN_IN_FLIGHT);
  }

  @Test
  void endsTheLoadWithItsWindowEvenWhileWaiting() throws Exception {
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(30), () -> {});
    sent.set(10_000);

    assertThat(pacer.admit(sent.get())).isFalse();
    assertThat(clock.get()).isBetween(START.plusSeconds(30), START.plusMillis(30_100));
  }

  @Test
  void nothingGoesAfterTheWindow() throws Exception {
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(30), () -> {});
    clock.set(START.plusSeconds(30));

    assertThat(pacer.admit(0)).isFalse();
  }

  @Test
  void theBoundFollowsTheDrainRateTimesTheTargetLatency() {
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(120), () -> {});
    counts.set(new OrderCounts(0L, 0L, 0L));
    pacer.inFlight(START);
    // 3,000 settled or rejected over 10 s: 300 orders a second.
    counts.set(new OrderCounts(3_100L, 2_980L, 20L));
    pacer.inFlight(START.plusSeconds(10));

    assertThat(300 * ClosedLoopPacer.TARGET_LATENCY.toSeconds())
        .as("a rate whose bound is above the minimum")
        .isGreaterThan(ClosedLoopPacer.MIN_IN_FLIGHT);
    assertThat(pacer.bound(START.plusSeconds(10)))
        .isEqualTo(300 * ClosedLoopPacer.TARGET_LATENCY.toSeconds());
  }

  @Test
  void theBoundFallsWhileNothingDrainsButNeverBelowTheMinimum() {
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(120), () -> {});
    pacer.inFlight(START);
    counts.set(new OrderCounts(3_450L, 3_000L, 0L));
    pacer.inFlight(START.plusSeconds(10));
    long draining = pacer.bound(START.plusSeconds(10));

    // PostgreSQL down: the counts stand still.
    pacer.inFlight(START.plusSeconds(20));
    long stalled = pacer.bound(START.plusSeconds(20));
    pacer.inFlight(START.plusSeconds(200));

    assertThat(stalled).isLessThan(draining);
    assertThat(pacer.bound(START.plusSeconds(200))).isEqualTo(ClosedLoopPacer.MIN_IN_FLIGHT);
  }

  /**
   * A pipeline that settles 100 orders a second, each 2 s after it is sent at the earliest: the
   * orders in flight stay near the bound (the drain rate times the target latency, or the minimum),
   * not near what a fixed 150/s would pile up (6,000 after two minutes).
   */
  @Test
  void aSimulatedPipelineKeepsItsOrdersInFlightNearTheBound() throws Exception {
    long[] sentAtMillis = new long[100_000];
    AtomicInteger settled = new AtomicInteger();
    Runnable pipeline =
        () -> {
          long now = Duration.between(START, clock.get()).toMillis();
          long capacity = now * 100 / 1000;
          while (settled.get() < sent.get()
              && settled.get() < capacity
              && sentAtMillis[settled.get()] + 2_000 <= now) {
            settled.incrementAndGet();
          }
          counts.set(new OrderCounts((long) sent.get(), (long) settled.get(), 0L));
        };
    ClosedLoopPacer pacer = pacer(Duration.ofSeconds(120), pipeline);
    while (pacer.admit(sent.get())) {
      sentAtMillis[sent.get()] = Duration.between(START, clock.get()).toMillis();
      sent.incrementAndGet();
      // 150 orders a second at most, as the load producer's own pacing.
      clock.set(clock.get().plusNanos(1_000_000_000L / 150));
      pipeline.run();
    }

    long bound =
        Math.max(ClosedLoopPacer.MIN_IN_FLIGHT, 100 * ClosedLoopPacer.TARGET_LATENCY.toSeconds());
    assertThat(pacer.maxInFlightSeen()).isLessThanOrEqualTo(bound + 100);
    assertThat((long) sent.get() - settled.get()).isLessThanOrEqualTo(bound + 100);
    assertThat(settled.get()).as("the pipeline kept busy").isGreaterThan(100 * 110);
  }
}
