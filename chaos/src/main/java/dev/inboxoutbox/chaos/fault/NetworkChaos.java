package dev.inboxoutbox.chaos.fault;

import dev.inboxoutbox.devstack.TcpProxy;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Network faults of a chaos run: at a steady interval it picks the next fault kind and the next
 * link, each in turn (so a short run sees each kind and each link, the first fault on the first
 * proxy given), breaks the network through that {@link TcpProxy} and records the fault in the
 * {@link FaultLog}.
 */
public final class NetworkChaos implements AutoCloseable {

  /** A network fault a run can inject. */
  public enum Fault {
    /**
     * Every chunk in each direction waits {@link Settings#latency()}, for {@link
     * Settings#duration()}.
     */
    LATENCY(FaultLog.Kind.NETWORK_LATENCY),
    /** Every open connection is reset at once (an instant). */
    RESET(FaultLog.Kind.NETWORK_RESET),
    /** Nothing passes for {@link Settings#duration()}; held bytes arrive afterwards. */
    BLACKHOLE(FaultLog.Kind.NETWORK_BLACKHOLE);

    final FaultLog.Kind kind;

    Fault(FaultLog.Kind kind) {
      this.kind = kind;
    }

    /** Parses {@code latency,reset,blackhole}, or {@code none} for no network faults. */
    public static Set<Fault> parseList(String list) {
      Set<Fault> faults = EnumSet.noneOf(Fault.class);
      for (String name : list.split(",")) {
        String trimmed = name.trim().toUpperCase(Locale.ROOT);
        if (trimmed.isEmpty() || trimmed.equals("NONE")) {
          continue;
        }
        try {
          faults.add(Fault.valueOf(trimmed));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "unknown network fault '" + name.trim() + "': use latency, reset, blackhole or none",
              e);
        }
      }
      return faults;
    }
  }

  /**
   * What to inject and how often.
   *
   * @param faults the kinds, taken in turn; empty for none
   * @param firstAfter when the first fault starts, after the load started
   * @param every the time from one fault's start to the next one's
   * @param latency the delay per chunk and direction of a {@link Fault#LATENCY} fault
   * @param duration how long a latency fault or a black hole lasts
   */
  public record Settings(
      Set<Fault> faults, Duration firstAfter, Duration every, Duration latency, Duration duration) {

    static final Duration DEFAULT_FIRST_AFTER = Duration.ofSeconds(8);
    static final Duration DEFAULT_EVERY = Duration.ofSeconds(15);
    static final Duration DEFAULT_LATENCY = Duration.ofMillis(200);
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(4);

    /**
     * Added latency only, the first 8 s into the load, one every 15 s, 200 ms for 4 s. Resets and
     * black holes are chosen explicitly: a connection broken under a transaction can still turn a
     * record into a {@code HANDLER_ERROR} dead letter (docs/chaos.md, network faults).
     */
    public static Settings defaults() {
      return new Settings(
          EnumSet.of(Fault.LATENCY),
          DEFAULT_FIRST_AFTER,
          DEFAULT_EVERY,
          DEFAULT_LATENCY,
          DEFAULT_DURATION);
    }

    public Settings {
      faults = Set.copyOf(faults);
      requireNonNegative(firstAfter, "network-fault-first-after");
      requirePositive(every, "network-fault-every");
      requirePositive(latency, "network-latency");
      requirePositive(duration, "network-fault-duration");
      if (duration.compareTo(every) >= 0) {
        throw new IllegalArgumentException(
            "network-fault-duration "
                + duration
                + " must be shorter than network-fault-every "
                + every
                + ": faults would overlap");
      }
    }

    private static void requirePositive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
    }

    private static void requireNonNegative(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative, was " + value);
      }
    }
  }

  private final List<TcpProxy> proxies;
  private final Settings settings;
  private final FaultLog log;
  private final PrintStream out;
  private final List<Fault> order;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "network-chaos");
            thread.setDaemon(true);
            return thread;
          });
  private int injected;
  private Runnable undo = () -> {};

  public NetworkChaos(List<TcpProxy> proxies, Settings settings, FaultLog log, PrintStream out) {
    this.proxies = List.copyOf(proxies);
    this.settings = settings;
    this.log = log;
    this.out = out;
    this.order = Arrays.stream(Fault.values()).filter(settings.faults()::contains).toList();
  }

  /** Starts injecting; does nothing when no fault kind or no proxy was chosen. */
  public void start() {
    if (order.isEmpty() || proxies.isEmpty()) {
      return;
    }
    scheduler.scheduleAtFixedRate(
        this::injectNext,
        settings.firstAfter().toMillis(),
        settings.every().toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** How many faults were injected so far. */
  public synchronized int injected() {
    return injected;
  }

  private synchronized void injectNext() {
    Fault fault = order.get(injected % order.size());
    TcpProxy proxy = proxies.get(injected % proxies.size());
    injected++;
    switch (fault) {
      case RESET -> {
        log.instant(fault.kind, proxy.name());
        int connections = proxy.resetConnections();
        out.printf("%n[network] reset %d connections to %s%n", connections, proxy.name());
      }
      case LATENCY -> {
        FaultLog.Ongoing ongoing = log.begin(fault.kind, proxy.name());
        proxy.latency(settings.latency());
        out.printf(
            "%n[network] +%d ms latency to %s for %d ms%n",
            settings.latency().toMillis(), proxy.name(), settings.duration().toMillis());
        endLater(
            () -> {
              proxy.latency(Duration.ZERO);
              ongoing.end();
            });
      }
      case BLACKHOLE -> {
        FaultLog.Ongoing ongoing = log.begin(fault.kind, proxy.name());
        proxy.openBlackHole();
        out.printf(
            "%n[network] black hole to %s for %d ms%n",
            proxy.name(), settings.duration().toMillis());
        endLater(
            () -> {
              proxy.closeBlackHole();
              ongoing.end();
            });
      }
    }
  }

  private void endLater(Runnable end) {
    Runnable once = new EndOnce(end);
    undo = once;
    scheduler.schedule(once, settings.duration().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Ends a fault exactly once, whether its time ran out or the run stopped the chaos first. */
  private static final class EndOnce implements Runnable {
    private Runnable end;

    EndOnce(Runnable end) {
      this.end = end;
    }

    @Override
    public synchronized void run() {
      if (end != null) {
        end.run();
        end = null;
      }
    }
  }

  /** Stops injecting and ends a fault still under way, so the run drains over a clean network. */
  public void stop() {
    scheduler.shutdownNow();
    synchronized (this) {
      undo.run();
    }
  }

  @Override
  public void close() {
    stop();
  }
}
