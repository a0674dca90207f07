package dev.inboxoutbox.chaos;

import dev.inboxoutbox.orders.load.LoadProducer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Paces a time-boxed load by what the pipeline drains (a closed loop): the next order goes only
 * while the orders in flight (sent, neither settled nor rejected) stay under a bound, and none goes
 * after the window. The bound follows the drain rate of the last seconds times {@link
 * #TARGET_LATENCY} (Little's law: in flight = rate x time in flight), never below {@link
 * #minInFlightFor(Duration) a minimum}. While a fault stops the drain the bound falls and the load
 * waits, instead of piling up orders that would all settle late.
 */
final class ClosedLoopPacer implements LoadProducer.Gate {

  /**
   * How long an order should be in flight while nothing is broken. The bound only grows while the
   * pipeline settles orders faster than this, so it must sit above the pipeline's own time to
   * settle an order under the run's faults (a default run's median was about 7 s): at 5 s the bound
   * sank to its minimum and the load sent a tenth of what the pipeline could settle.
   */
  static final Duration TARGET_LATENCY = Duration.ofSeconds(10);

  /**
   * The bound while the drain rate is unknown or low, so the load can start and recover. An order's
   * time to settle is mostly fixed delay (the provider, its webhooks, the faults), so the drain
   * rate only grows with the orders in flight: a default run held at 150 settled 760 orders in its
   * window, at 500 it settled 2,409. Under the default faults an order is in flight far longer than
   * {@link #TARGET_LATENCY}, so the bound sits at this minimum for most of the window: at 500 two
   * runs settled 2,597 and 2,977 orders with the machine 72 CPU-seconds idle, at 1,000 two runs
   * settled 3,448 and 3,465. Under the default faults the window's own drain hardly moves with the
   * bound (1,758 and 1,768 settled by the window's end at 1,000 and 2,000, same seed): what the
   * bound adds is the backlog the settle phase drains once the faults stop, at 50 to 80 orders a
   * second. At 1,000 three runs in six settled fewer than the 3,000 of the floor. With the faults
   * ending before the window does, the settle phase drains at 80 to 150 orders a second; at 2,000
   * two runs in six still settled fewer than 3,000 (2,688 and 2,925), so the bound leaves 400 more
   * for the settle phase (docs/chaos-runs.md, the default run).
   */
  static final int MIN_IN_FLIGHT = 2400;

  /** The window {@link #MIN_IN_FLIGHT} is for: the default one. */
  static final Duration MIN_IN_FLIGHT_WINDOW = Duration.ofSeconds(120);

  /** The drain rate is measured over this much of the recent past. */
  static final Duration RATE_OVER = Duration.ofSeconds(10);

  private static final Duration POLL = Duration.ofMillis(20);

  /** How long the caller sleeps between two looks: a test's clock moves instead. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private record Drained(Instant at, long orders) {}

  private final Instant deadline;
  private final Supplier<Instant> clock;
  private final Sleeper sleeper;
  private final Supplier<OrderCounts> counts;
  private final IntSupplier ordersSent;
  private final long minInFlight;
  private final Deque<Drained> recent = new ArrayDeque<>();
  private volatile long maxInFlightSeen;

  /**
   * @param deadline when the load window closes
   * @param counts the last counts the progress sampler read (placed, settled, rejected)
   * @param ordersSent distinct orders the load has sent
   * @param minInFlight the bound while the drain is slow ({@link #minInFlightFor(Duration)})
   */
  ClosedLoopPacer(
      Instant deadline,
      long minInFlight,
      Supplier<OrderCounts> counts,
      IntSupplier ordersSent,
      Supplier<Instant> clock,
      Sleeper sleeper) {
    this.deadline = deadline;
    this.minInFlight = minInFlight;
    this.counts = counts;
    this.ordersSent = ordersSent;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  static ClosedLoopPacer live(
      Instant loadStarted, Duration window, Supplier<OrderCounts> counts, IntSupplier ordersSent) {
    return new ClosedLoopPacer(
        loadStarted.plus(window),
        minInFlightFor(window),
        counts,
        ordersSent,
        Instant::now,
        duration -> Thread.sleep(duration.toMillis()));
  }

  /**
   * {@link #MIN_IN_FLIGHT} for the default window, proportionally less for a shorter one: what is
   * in flight when the window closes is drained in the settle phase, and a shorter window claims
   * proportionally fewer settled orders.
   */
  static long minInFlightFor(Duration window) {
    long share = MIN_IN_FLIGHT * window.toMillis() / MIN_IN_FLIGHT_WINDOW.toMillis();
    return Math.max(1, Math.min(MIN_IN_FLIGHT, share));
  }

  @Override
  public boolean admit(int ordersSentSoFar) throws InterruptedException {
    while (true) {
      Instant now = clock.get();
      if (!now.isBefore(deadline)) {
        return false;
      }
      long inFlight = inFlight(now);
      if (inFlight < bound(now)) {
        return true;
      }
      sleeper.sleep(POLL);
    }
  }

  /** Orders sent and neither settled nor rejected, as far as the last sample knows. */
  synchronized long inFlight(Instant now) {
    long drained = counts.get().drained();
    observe(now, drained);
    long inFlight = Math.max(0, ordersSent.getAsInt() - drained);
    maxInFlightSeen = Math.max(maxInFlightSeen, inFlight);
    return inFlight;
  }

  /** The orders that may be in flight now: the recent drain rate times the target latency. */
  synchronized long bound(Instant now) {
    if (recent.size() < 2) {
      return minInFlight;
    }
    Drained oldest = recent.peekFirst();
    Drained newest = recent.peekLast();
    long millis = Duration.between(oldest.at(), now).toMillis();
    if (millis <= 0) {
      return minInFlight;
    }
    double perMilli = (double) (newest.orders() - oldest.orders()) / millis;
    return Math.max(minInFlight, Math.round(perMilli * TARGET_LATENCY.toMillis()));
  }

  /** The most orders in flight the pacer saw, for the report. */
  long maxInFlightSeen() {
    return maxInFlightSeen;
  }

  private void observe(Instant now, long drained) {
    Drained newest = recent.peekLast();
    if (newest == null || newest.orders() != drained) {
      recent.addLast(new Drained(now, drained));
    }
    // The oldest observation inside the span, plus one before it: the rate spans RATE_OVER.
    while (recent.size() > 2) {
      Iterator<Drained> oldestFirst = recent.iterator();
      oldestFirst.next();
      if (Duration.between(oldestFirst.next().at(), now).compareTo(RATE_OVER) <= 0) {
        return;
      }
      recent.removeFirst();
    }
  }
}
