package dev.inboxoutbox.chaos.fault;

import dev.inboxoutbox.devstack.KafkaBroker;
import dev.inboxoutbox.devstack.KafkaCluster;
import dev.inboxoutbox.devstack.PostgresServer;
import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Crashes PostgreSQL, fails it over to its standby and SIGKILLs Kafka brokers at their rates during
 * the kill phase, one infrastructure fault at a time (so that recovery is measured from one cause),
 * each recorded in the {@link FaultLog} from the kill until the server is back. The first of each
 * kind is due after half its interval, so that a short run has one of each.
 */
public final class InfrastructureFaults implements AutoCloseable {

  private static final Duration BROKER_START_TIMEOUT = Duration.ofMinutes(5);

  /**
   * How long a failover waits for the relays' slots to be synchronized to the standby: right after
   * the previous failover the promoted slots move only at snapshots of the running transactions
   * that find no decoded transaction open (relay-embedded.md#failover).
   */
  private static final Duration FAILOVER_READY_PATIENCE = Duration.ofSeconds(180);

  /**
   * The negative control holds replication back until the primary alone has committed this many
   * orders: a hold of a fixed time lost nothing to see when the services were restarting or slowed
   * by a latency fault through it.
   */
  private static final int UNSAFE_ORDERS = 20;

  /** How long the negative control waits for {@link #UNSAFE_ORDERS} before failing over anyway. */
  private static final Duration UNSAFE_PATIENCE = Duration.ofSeconds(30);

  /**
   * How long replication stays held once those orders are committed: the consumers commit the
   * records' Kafka offsets after their transactions, and only a record whose offset is committed is
   * not delivered again after the failover.
   */
  private static final Duration UNSAFE_HOLD = Duration.ofSeconds(3);

  /** Orders committed so far, read where the services commit (the primary while it serves). */
  @FunctionalInterface
  public interface CommittedOrders {
    long count() throws SQLException;
  }

  private final FaultOptions options;
  private final FaultLog log;
  private final Optional<PostgresServer.Processes> postgres;
  private final Optional<PostgresServer.Replication> replication;
  private final Optional<KafkaCluster> kafka;
  private final CommittedOrders committedOrders;
  private final Random random;
  private final PrintStream out;
  private final ExecutorService injecting =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "iox-infrastructure-faults");
            thread.setDaemon(true);
            return thread;
          });
  private final Map<FaultLog.Kind, Instant> nextDue = new EnumMap<>(FaultLog.Kind.class);
  private final Map<FaultLog.Kind, Integer> injected = new EnumMap<>(FaultLog.Kind.class);
  private Future<?> current;

  public InfrastructureFaults(
      FaultOptions options,
      FaultLog log,
      Optional<PostgresServer.Processes> postgres,
      Optional<PostgresServer.Replication> replication,
      Optional<KafkaCluster> kafka,
      CommittedOrders committedOrders,
      Random random,
      PrintStream out) {
    this.options = options;
    this.log = log;
    this.postgres = postgres;
    this.replication = replication;
    this.kafka = kafka;
    this.committedOrders = committedOrders;
    this.random = random;
    this.out = out;
    if (options.includes(FaultLog.Kind.POSTGRES_CRASH) && postgres.isEmpty()) {
      throw new IllegalArgumentException(
          "postgres-crash needs a PostgreSQL this run started (the embedded one); drop it from"
              + " --faults for an external server");
    }
    if (options.includes(FaultLog.Kind.POSTGRES_FAILOVER) && replication.isEmpty()) {
      throw new IllegalArgumentException(
          "postgres-failover needs the run's own primary and standby (the embedded PostgreSQL);"
              + " drop it from --faults for an external server");
    }
    if (options.includes(FaultLog.Kind.BROKER_KILL) && kafka.isEmpty()) {
      throw new IllegalArgumentException(
          "broker-kill needs the run's own Kafka cluster (--kafka-brokers 3, no IOX_KAFKA_BOOTSTRAP)");
    }
    Instant now = Instant.now();
    schedule(FaultLog.Kind.POSTGRES_CRASH, now, options.postgresCrashEvery().dividedBy(2));
    schedule(FaultLog.Kind.POSTGRES_FAILOVER, now, options.postgresFailoverEvery().dividedBy(2));
    schedule(FaultLog.Kind.BROKER_KILL, now, options.brokerKillEvery().dividedBy(2));
  }

  private void schedule(FaultLog.Kind kind, Instant from, Duration after) {
    if (options.includes(kind)) {
      nextDue.put(kind, from.plus(after));
      injected.putIfAbsent(kind, 0);
    }
  }

  /**
   * Starts a fault that is due, unless one is still going on or it would outlast {@code faultsEnd}
   * (the end of a time-boxed run's fault phase); rethrows a failed injection. A fault that outlasts
   * the window holds the run's end back by as much, while the services drain without it anyway.
   */
  public synchronized void tick(Instant faultsEnd) throws ExecutionException, InterruptedException {
    if (current != null) {
      if (!current.isDone()) {
        return;
      }
      current.get();
      current = null;
    }
    Instant now = Instant.now();
    for (FaultLog.Kind kind :
        List.of(
            FaultLog.Kind.POSTGRES_CRASH,
            FaultLog.Kind.POSTGRES_FAILOVER,
            FaultLog.Kind.BROKER_KILL)) {
      Instant due = nextDue.get(kind);
      if (due != null && !now.isBefore(due) && endsBefore(kind, now, faultsEnd)) {
        injected.merge(kind, 1, Integer::sum);
        current =
            injecting.submit(
                () -> {
                  inject(kind);
                  return null;
                });
        // The interval counts from the end of this fault, so outages never run into each other.
        nextDue.put(kind, Instant.MAX);
        return;
      }
    }
  }

  /**
   * Whether a fault of {@code kind} started {@code now} ends by {@code faultsEnd}, as long as such
   * faults lasted on two cores: a PostgreSQL crash its down time and about 2 s to start (7.6 s at
   * most in a long run), a failover up to 6 s, a broker kill its down time and 8 to 13 s until the
   * new broker listens.
   */
  boolean endsBefore(FaultLog.Kind kind, Instant now, Instant faultsEnd) {
    Duration lasts =
        switch (kind) {
          case POSTGRES_CRASH -> options.postgresDown().plusSeconds(3);
          case POSTGRES_FAILOVER -> Duration.ofSeconds(6);
          default -> options.brokerDown().plusSeconds(13);
        };
    return !now.plus(lasts).isAfter(faultsEnd);
  }

  /** Whether every kind asked for has been injected at least once. */
  public synchronized boolean eachKindInjected() {
    return injected.values().stream().allMatch(count -> count > 0);
  }

  /** How many of each kind were injected. */
  synchronized Map<FaultLog.Kind, Integer> injected() {
    return Map.copyOf(injected);
  }

  /** Waits until the fault going on (if any) is over: the server is back. */
  public void awaitIdle() throws ExecutionException, InterruptedException {
    Future<?> going;
    synchronized (this) {
      going = current;
    }
    if (going != null) {
      going.get();
    }
  }

  private void inject(FaultLog.Kind kind) throws InterruptedException {
    switch (kind) {
      case POSTGRES_CRASH -> crashPostgres();
      case POSTGRES_FAILOVER -> failOverPostgres();
      case BROKER_KILL -> killBroker();
      default ->
          throw new IllegalArgumentException("not an infrastructure fault of this class: " + kind);
    }
    synchronized (this) {
      Duration every =
          switch (kind) {
            case POSTGRES_CRASH -> options.postgresCrashEvery();
            case POSTGRES_FAILOVER -> options.postgresFailoverEvery();
            default -> options.brokerKillEvery();
          };
      nextDue.put(kind, Instant.now().plus(every));
    }
  }

  private void crashPostgres() throws InterruptedException {
    PostgresServer.Processes server = postgres.orElseThrow();
    FaultLog.Ongoing fault = log.begin(FaultLog.Kind.POSTGRES_CRASH, "postgres");
    try {
      server.kill();
      out.printf(
          "%n[%.1fs] PostgreSQL SIGKILLed, down for %s s%n",
          log.now() / 1000.0, seconds(options.postgresDown()));
      Thread.sleep(options.postgresDown().toMillis());
      server.start();
      out.printf("%n[%.1fs] PostgreSQL up again%n", log.now() / 1000.0);
    } finally {
      fault.end();
    }
  }

  /**
   * The primary SIGKILLed, the standby promoted and the address moved to it, the old primary
   * rebuilt as the new standby; the fault lasts until that standby streams.
   */
  private void failOverPostgres() throws InterruptedException {
    PostgresServer.Replication pair = replication.orElseThrow();
    Instant waitFrom = Instant.now();
    boolean ready = awaitFailoverReady(pair);
    out.printf(
        "%n[%.1fs] %s after %.1f s%n",
        log.now() / 1000.0,
        ready
            ? "the relays' slots are synchronized to the standby"
            : "the relays' slots are still not synchronized to the standby; failing over anyway",
        Duration.between(waitFrom, Instant.now()).toMillis() / 1000.0);
    FaultLog.Ongoing fault = log.begin(FaultLog.Kind.POSTGRES_FAILOVER, "postgres");
    try {
      if (options.unsafeFailover()) {
        // The negative control: what the services commit now is acknowledged by the primary
        // alone, and the failover below loses it.
        pair.holdReplication(true);
        holdUntilOrdersAreLost();
      }
      String before = pair.describe();
      pair.failover();
      out.printf(
          "%n[%.1fs] PostgreSQL failed over (was %s; now %s)%n",
          log.now() / 1000.0, before, pair.describe());
    } finally {
      fault.end();
    }
  }

  /**
   * The negative control's hold: until the primary alone has committed {@link #UNSAFE_ORDERS}
   * orders and the consumers have had {@link #UNSAFE_HOLD} to commit their offsets past them.
   */
  private void holdUntilOrdersAreLost() throws InterruptedException {
    out.printf(
        "%n[%.1fs] replication to the standby held before the failover (negative control)%n",
        log.now() / 1000.0);
    Instant heldAt = Instant.now();
    OptionalLong before = readCommittedOrders();
    Instant deadline = heldAt.plus(UNSAFE_PATIENCE);
    OptionalLong now = before;
    while (Instant.now().isBefore(deadline)
        && (before.isEmpty()
            || now.isEmpty()
            || now.getAsLong() - before.getAsLong() < UNSAFE_ORDERS)) {
      Thread.sleep(250);
      now = readCommittedOrders();
      if (before.isEmpty()) {
        before = now;
      }
    }
    long committedAlone =
        before.isPresent() && now.isPresent() ? now.getAsLong() - before.getAsLong() : 0;
    out.printf(
        "%n[%.1fs] %d orders committed on the primary alone after %.1f s%s; failing over in %s s%n",
        log.now() / 1000.0,
        committedAlone,
        Duration.between(heldAt, Instant.now()).toMillis() / 1000.0,
        committedAlone < UNSAFE_ORDERS ? " (fewer than " + UNSAFE_ORDERS + ")" : "",
        seconds(UNSAFE_HOLD));
    Thread.sleep(UNSAFE_HOLD.toMillis());
  }

  private OptionalLong readCommittedOrders() {
    try {
      return OptionalLong.of(committedOrders.count());
    } catch (SQLException unreachable) {
      return OptionalLong.empty();
    }
  }

  /**
   * A failover before a slot's copy on the standby survives promotion loses that slot (a new slot's
   * first seconds, or while its reader has not confirmed past what the standby can keep); the run
   * fails over a standby that platforms would call ready, and says when it was not. The standby's
   * slot sync worker is woken at each look: left to its naps (up to 30 s each) the wait took 44 and
   * 93 s on a loaded machine, a failover due early in a run landing after its load.
   */
  private static boolean awaitFailoverReady(PostgresServer.Replication pair)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(FAILOVER_READY_PATIENCE);
    while (Instant.now().isBefore(deadline)) {
      try {
        pair.wakeSlotSync();
        if (pair.failoverReady()) {
          return true;
        }
      } catch (java.sql.SQLException notReachable) {
        // a crash of the primary going on elsewhere: ask again
      }
      Thread.sleep(250);
    }
    return false;
  }

  private void killBroker() throws InterruptedException {
    KafkaCluster cluster = kafka.orElseThrow();
    KafkaBroker broker = cluster.busiestLeader(random);
    FaultLog.Ongoing fault = log.begin(FaultLog.Kind.BROKER_KILL, "broker-" + broker.nodeId());
    try {
      broker.kill();
      out.printf(
          "%n[%.1fs] Kafka broker %d (leader of the busiest partitions) SIGKILLed, down for %s s%n",
          log.now() / 1000.0, broker.nodeId(), seconds(options.brokerDown()));
      Thread.sleep(options.brokerDown().toMillis());
      broker.start();
      KafkaCluster.awaitListening(broker, BROKER_START_TIMEOUT);
      out.printf("%n[%.1fs] Kafka broker %d up again%n", log.now() / 1000.0, broker.nodeId());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot restart broker " + broker.nodeId(), e);
    } finally {
      fault.end();
    }
  }

  private static String seconds(Duration duration) {
    return String.format(java.util.Locale.ROOT, "%.1f", duration.toMillis() / 1000.0);
  }

  @Override
  public void close() {
    injecting.shutdownNow();
  }
}
