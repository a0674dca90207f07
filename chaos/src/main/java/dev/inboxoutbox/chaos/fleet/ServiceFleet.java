package dev.inboxoutbox.chaos.fleet;

import dev.inboxoutbox.chaos.fault.FaultLog;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The service processes of a run: starts them, kills one on demand (SIGKILL), restarts the dead
 * (killed by the run, or halted at a crash point) and keeps the count of every kill.
 */
public final class ServiceFleet implements AutoCloseable {

  private static final Duration STARTING_VICTIM_MIN_AGE = Duration.ofSeconds(5);

  /** The chaos extension's {@code CrashInjector.HALT_STATUS}: the exit code of a crash point. */
  static final int CRASH_POINT_STATUS = 137;

  /**
   * At most one kill in this many may hit an instance that is still starting: each such kill costs
   * a restart that counts towards no proof floor, and restarts bound what a run can inject.
   */
  private static final int KILLS_PER_START_UP_KILL = 10;

  /**
   * An instance that exits this long after an infrastructure fault ended still counts as exiting
   * because of it: one started during a database outage fails its migrations a moment later.
   */
  private static final long OUTAGE_AFTERMATH_MILLIS = 15_000;

  private final Random random;
  private final Duration restartDelay;
  private final PrintStream out;
  private final List<ServiceProcess> orderServices = new ArrayList<>();
  // The webhook proxy reads this list while the run fills it.
  private final List<ServiceProcess> paymentServices = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> kills = new LinkedHashMap<>();
  private final AtomicInteger killsOfServingInstances = new AtomicInteger();
  private final AtomicInteger killsDuringInfrastructureFault = new AtomicInteger();
  private final AtomicInteger killsWithOrdersInFlight = new AtomicInteger();
  private volatile BooleanSupplier ordersInFlight = () -> false;
  private final AtomicInteger exitsDuringOutage = new AtomicInteger();
  private volatile FaultLog faults;
  private final Set<ServiceProcess> killedDuringStartUp = ConcurrentHashMap.newKeySet();
  private final Set<ServiceProcess> killedByUs = ConcurrentHashMap.newKeySet();
  private final List<Kill> killLog = new ArrayList<>();
  private final ExecutorService restarts = Executors.newCachedThreadPool();
  private final ScheduledExecutorService supervisor = Executors.newSingleThreadScheduledExecutor();

  /**
   * Asks the instances' health endpoints at once: asked one after another, instances busy starting
   * or waiting on an outage held the kill loop for up to 5 s (2 s timeout each).
   */
  private final ExecutorService healthReads = Executors.newCachedThreadPool();

  public ServiceFleet(Random random, Duration restartDelay, PrintStream out) {
    this.random = random;
    this.restartDelay = restartDelay;
    this.out = out;
    for (String kind : List.of("random", "relay-leader", "crash-point")) {
      kills.put(kind, new AtomicInteger());
    }
  }

  /**
   * From now on every kill and crash point is also a fault in {@code faults}, and a kill while an
   * infrastructure fault lasts is counted apart.
   */
  public void recordFaultsIn(FaultLog faults) {
    this.faults = faults;
  }

  /**
   * From now on a kill of a serving instance while {@code ordersInFlight} holds (orders sent and
   * not yet settled) counts as a kill that hit work in flight. The run cannot see inside a process:
   * a serving instance holds partitions, and orders in flight mean records to process on them.
   */
  public void countKillsWithOrdersInFlight(BooleanSupplier ordersInFlight) {
    this.ordersInFlight = ordersInFlight;
  }

  public void addOrderService(ServiceProcess service) {
    orderServices.add(service);
  }

  public void addPaymentService(ServiceProcess service) {
    paymentServices.add(service);
  }

  /** The payment-consumers, for the webhook proxy: a live view, filled as the run starts them. */
  public List<ServiceProcess> paymentServices() {
    return paymentServices;
  }

  public List<ServiceProcess> all() {
    return Stream.concat(orderServices.stream(), paymentServices.stream()).toList();
  }

  /** Starts every process and waits until all serve. */
  public void start(Duration timeout) throws IOException, InterruptedException {
    List<ServiceProcess> all = all();
    for (ServiceProcess service : all) {
      service.start();
    }
    Instant deadline = Instant.now().plus(timeout);
    while (!all.stream().allMatch(ServiceProcess::ready)) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("services not ready within " + timeout + "; see the logs");
      }
      for (ServiceProcess service : all) {
        if (!service.alive()) {
          service.start();
        }
      }
      Thread.sleep(250);
    }
  }

  /** From now on, a process that halted on its own (a crash point) is counted and restarted. */
  public void superviseCrashes() {
    supervisor.scheduleWithFixedDelay(this::restartCrashed, 200, 200, TimeUnit.MILLISECONDS);
  }

  /** Stops restarting: what is down stays down. */
  public void stopRestarting() {
    supervisor.shutdownNow();
    restarts.shutdownNow();
  }

  /**
   * Kills one eligible process and schedules its restart; false when none is eligible, or when
   * choosing took until after {@code notAfter} (the health reads that choose wait up to 2 s each).
   */
  public synchronized boolean killOne(Instant notAfter) {
    ServiceProcess victim = chooseVictim(notAfter);
    if (victim == null) {
      return false;
    }
    killedByUs.add(victim);
    victim.kill();
    restarts.submit(() -> restartLater(victim));
    return true;
  }

  /**
   * A victim is an instance that serves (health UP: consumers and relay running) and whose
   * consumers hold partitions, so it holds records to process, open transactions and, for one of
   * them, the relay slot. Waiting for the partitions, not for a time after health UP: an instance
   * gets them from 0.1 to 3 s after it serves, and restarts bound how many kills a run has. One
   * kill in {@link #KILLS_PER_START_UP_KILL} at most may instead hit an instance that has been
   * starting for at least {@link #STARTING_VICTIM_MIN_AGE}: past the JVM's own start, into the
   * application's (migrations, joining its groups, competing for the relay slot), a real crash
   * during start-up; such an instance must serve before it can be killed again. Never the last
   * serving instance of a service: the run measures recovery, not an outage.
   */
  private ServiceProcess chooseVictim(Instant notAfter) {
    List<ServiceProcess> all = all();
    // One reading per instance for every filter below: read again one by one, a reading older
    // than a second cost each filter another request per instance.
    Map<ServiceProcess, Health> health =
        atOnce(all, service -> new Health(service.ready(), service.servesPartitions()));
    all.stream()
        .filter(service -> health.get(service).ready())
        .forEach(killedDuringStartUp::remove);
    boolean startUpKillAllowed =
        startUpKillAllowed(totalKills(), totalKills() - killsOfServingInstances.get());
    List<ServiceProcess> alive =
        all.stream()
            .filter(ServiceProcess::alive)
            .filter(
                service ->
                    health.get(service).servesPartitions()
                        || (startUpKillAllowed
                            && !health.get(service).ready()
                            && service.upFor().compareTo(STARTING_VICTIM_MIN_AGE) >= 0
                            && !killedDuringStartUp.contains(service)))
            .filter(service -> hasServingSibling(service, health))
            .toList();
    if (alive.isEmpty()) {
      return null;
    }
    ServiceProcess leader = null;
    if (random.nextDouble() < 0.3) {
      Map<ServiceProcess, Boolean> leads = atOnce(alive, ServiceProcess::leadsRelay);
      List<ServiceProcess> leaders = alive.stream().filter(leads::get).toList();
      if (!leaders.isEmpty()) {
        leader = leaders.get(random.nextInt(leaders.size()));
      }
    }
    if (Instant.now().isAfter(notAfter)) {
      return null;
    }
    ServiceProcess victim = leader != null ? leader : alive.get(random.nextInt(alive.size()));
    record(leader != null ? "relay-leader" : "random", victim);
    return victim;
  }

  /** An instance's health as one choice of a victim read it. */
  private record Health(boolean ready, boolean servesPartitions) {}

  /** {@code read} of each service, each on a thread of its own. */
  private <T> Map<ServiceProcess, T> atOnce(
      List<ServiceProcess> services, Function<ServiceProcess, T> read) {
    Map<ServiceProcess, CompletableFuture<T>> reads = new LinkedHashMap<>();
    for (ServiceProcess service : services) {
      reads.put(service, CompletableFuture.supplyAsync(() -> read.apply(service), healthReads));
    }
    Map<ServiceProcess, T> results = new LinkedHashMap<>();
    reads.forEach((service, answer) -> results.put(service, answer.join()));
    return results;
  }

  /** Whether one more kill may hit a starting instance and keep them at most one in ten. */
  static boolean startUpKillAllowed(int kills, int startUpKills) {
    return (startUpKills + 1) * KILLS_PER_START_UP_KILL <= kills + 1;
  }

  /**
   * Whether another instance of the service serves: health UP, or holding partitions while an
   * outage turns its health DOWN.
   */
  private boolean hasServingSibling(ServiceProcess service, Map<ServiceProcess, Health> health) {
    List<ServiceProcess> siblings =
        orderServices.contains(service) ? orderServices : paymentServices;
    return siblings.stream()
        .anyMatch(
            other ->
                other != service
                    && (health.get(other).servesPartitions() || health.get(other).ready()));
  }

  private synchronized void record(String kind, ServiceProcess victim) {
    kills.get(kind).incrementAndGet();
    FaultLog log = faults;
    boolean duringInfrastructureFault = log != null && log.infrastructureFaultActive();
    if (duringInfrastructureFault) {
      killsDuringInfrastructureFault.incrementAndGet();
    }
    if (log != null) {
      log.instant(
          kind.equals("crash-point") ? FaultLog.Kind.CRASH_POINT : FaultLog.Kind.PROCESS_KILL,
          victim.name());
    }
    // A crash point fires inside a handler or the relay: that instance was serving by definition.
    boolean serving = kind.equals("crash-point") || victim.servesPartitions();
    if (serving) {
      killsOfServingInstances.incrementAndGet();
      // A crash point halts inside a handler's transaction or the relay: work in flight by
      // definition.
      if (kind.equals("crash-point") || ordersInFlight.getAsBoolean()) {
        killsWithOrdersInFlight.incrementAndGet();
      }
    } else {
      killedDuringStartUp.add(victim);
    }
    killLog.add(
        new Kill(
            System.currentTimeMillis(), kind, victim.name(), serving, duringInfrastructureFault));
  }

  private void restartLater(ServiceProcess victim) {
    try {
      Thread.sleep(restartDelay.toMillis());
      victim.start();
      killedByUs.remove(victim);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      out.println("restart of " + victim.name() + " failed: " + e.getMessage());
    }
  }

  /**
   * Processes that exited on their own, restarted: see {@link #exitDuringOutage(Integer, boolean)}
   * for how each is counted.
   */
  private synchronized void restartCrashed() {
    for (ServiceProcess service : all()) {
      if (!service.alive() && !killedByUs.contains(service) && service.starts() > 0) {
        killedByUs.add(service);
        FaultLog log = faults;
        boolean afterOutage = log != null && log.infrastructureFaultWithin(OUTAGE_AFTERMATH_MILLIS);
        if (exitDuringOutage(service.exitCode(), afterOutage)) {
          recordExitDuringOutage(service);
        } else {
          record("crash-point", service);
        }
        restarts.submit(() -> restartLater(service));
      }
    }
  }

  /**
   * Whether a process that exited on its own counts as an exit during an outage rather than a crash
   * point. A crash point halts with {@link #CRASH_POINT_STATUS}, outage or not; a process that
   * exited otherwise during or just after an infrastructure fault could not start or run without
   * its database or broker.
   */
  static boolean exitDuringOutage(Integer exitCode, boolean afterOutage) {
    return afterOutage && (exitCode == null || exitCode != CRASH_POINT_STATUS);
  }

  private synchronized void recordExitDuringOutage(ServiceProcess service) {
    exitsDuringOutage.incrementAndGet();
    killLog.add(
        new Kill(
            System.currentTimeMillis(),
            Kill.EXIT_DURING_OUTAGE,
            service.name(),
            service.servedInThisLife(),
            true));
  }

  /**
   * Kills and crash points that hit a serving instance while orders were in flight: what the
   * process-fault floor counts.
   */
  public int processFaultsWithOrdersInFlight() {
    return killsWithOrdersInFlight.get();
  }

  public synchronized int totalKills() {
    return kills.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  public synchronized Map<String, Integer> killCounts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("total", totalKills());
    counts.put("whileServing", killsOfServingInstances.get());
    counts.put("duringStartUp", totalKills() - killsOfServingInstances.get());
    counts.put("whileServingWithOrdersInFlight", killsWithOrdersInFlight.get());
    kills.forEach((kind, count) -> counts.put(kind, count.get()));
    counts.put("duringInfrastructureFault", killsDuringInfrastructureFault.get());
    counts.put("exitsDuringOutage", exitsDuringOutage.get());
    return counts;
  }

  /** Every kill so far, timed in epoch milliseconds: see {@link Kill#relativeTo(long)}. */
  public synchronized List<Kill> killLog() {
    return List.copyOf(killLog);
  }

  /** Stops restarting and kills every process. */
  @Override
  public void close() {
    stopRestarting();
    healthReads.shutdownNow();
    all().forEach(ServiceProcess::kill);
  }
}
