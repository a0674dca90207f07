package dev.inboxoutbox.chaos.fault;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Every fault a chaos run injects, with its kind, target, start and end on the run's one time base
 * (milliseconds since the load started). The report, the accounting of kills during an outage and
 * the recovery figures all read it; nothing else keeps its own clock.
 */
public final class FaultLog {

  /** What was broken. */
  public enum Kind {
    PROCESS_KILL,
    CRASH_POINT,
    POSTGRES_CRASH,
    POSTGRES_FAILOVER,
    BROKER_KILL,
    NETWORK_LATENCY,
    NETWORK_RESET,
    NETWORK_BLACKHOLE;

    /**
     * Faults of the infrastructure (database, brokers, network) rather than of a service process.
     */
    public boolean infrastructure() {
      return this != PROCESS_KILL && this != CRASH_POINT;
    }
  }

  /** One fault; {@code endMillis} is empty while it lasts (a kill ends when it happens). */
  public record Fault(Kind kind, String target, long startMillis, Optional<Long> endMillis) {}

  /** Ends the fault it was returned for. */
  interface Ongoing {
    void end();
  }

  private final Supplier<Instant> clock;
  private final Instant origin;
  private final List<Fault> faults = new ArrayList<>();

  public FaultLog(Instant origin) {
    this(origin, Instant::now);
  }

  public FaultLog(Instant origin, Supplier<Instant> clock) {
    this.origin = origin;
    this.clock = clock;
  }

  /** Records a fault that starts now and lasts until {@link Ongoing#end()}. */
  synchronized Ongoing begin(Kind kind, String target) {
    int index = faults.size();
    faults.add(new Fault(kind, target, now(), Optional.empty()));
    return () -> {
      synchronized (this) {
        Fault started = faults.get(index);
        faults.set(
            index,
            new Fault(started.kind(), started.target(), started.startMillis(), Optional.of(now())));
      }
    };
  }

  /** Records a fault with no duration, such as a SIGKILL. */
  public synchronized void instant(Kind kind, String target) {
    long at = now();
    faults.add(new Fault(kind, target, at, Optional.of(at)));
  }

  /** Whether an infrastructure fault is going on now. */
  public synchronized boolean infrastructureFaultActive() {
    return faults.stream().anyMatch(f -> f.kind().infrastructure() && f.endMillis().isEmpty());
  }

  /**
   * Whether an infrastructure fault is going on now or ended less than {@code millis} ago: a
   * service started during a database outage may exit a moment after the database is back.
   */
  public synchronized boolean infrastructureFaultWithin(long millis) {
    long now = now();
    return faults.stream()
        .anyMatch(
            f ->
                f.kind().infrastructure()
                    && f.endMillis().map(end -> now - end < millis).orElse(true));
  }

  public synchronized List<Fault> all() {
    return List.copyOf(new ArrayList<>(faults));
  }

  /** Milliseconds since the run's origin. */
  long now() {
    return Duration.between(origin, clock.get()).toMillis();
  }
}
