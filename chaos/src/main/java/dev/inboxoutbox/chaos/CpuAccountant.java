package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceFleet;
import dev.inboxoutbox.chaos.fleet.ServiceProcess;
import dev.inboxoutbox.chaos.report.CpuByComponent;
import dev.inboxoutbox.devstack.KafkaCluster;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.devstack.PostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CPU each component of a run used, from {@code /proc/<pid>/stat} (Linux): sampled once a
 * second with the run's progress, so that a process killed between two samples keeps what the last
 * one read (at most a second of its CPU is missing), and a component's processes are summed over
 * restarts. A process already running at {@link #start()} counts from what it had used by then.
 */
final class CpuAccountant {

  /** The component of the {@code iox} JVM: with the in-JVM broker, Kafka is part of it. */
  static final String IOX_JVM = "iox JVM";

  static final String BROKERS = "Kafka brokers";
  static final String POSTGRES = "PostgreSQL";

  /**
   * What one process of a component has used so far, in ticks; {@code startTicks} (when it started,
   * since boot) tells a reused PID from the process that had it before.
   */
  record Reading(long pid, long startTicks, long ticks) {}

  /** Reads the processes of a component that run now. */
  @FunctionalInterface
  interface Source {
    List<Reading> read();
  }

  private record ProcessKey(long pid, long startTicks) {}

  /** One process: what it had used at the start of the accounting, and at its last reading. */
  private static final class Account {
    final long baseline;
    long last;

    Account(long baseline) {
      this.baseline = baseline;
      this.last = baseline;
    }
  }

  private final Map<String, Source> sources = new LinkedHashMap<>();
  private final Map<String, Map<ProcessKey, Account>> accounts = new LinkedHashMap<>();
  private final String note;
  private final Optional<String> unavailable;
  private Optional<MachineLoad.Sample> machineAtStart = Optional.empty();
  private Optional<Double> machineBusy = Optional.empty();
  private boolean started;

  CpuAccountant(String note) {
    this(note, Optional.empty());
  }

  private CpuAccountant(String note, Optional<String> unavailable) {
    this.note = note;
    this.unavailable = unavailable;
  }

  /**
   * The components of a run: the brokers of its cluster (or, with the in-JVM broker, the {@code
   * iox} JVM, which says so), each service of the fleet, PostgreSQL where this JVM started it (with
   * the backends its postmaster forked), and the {@code iox} JVM.
   */
  static CpuAccountant forRun(
      Optional<KafkaCluster> cluster,
      boolean brokerInThisJvm,
      PostgresServer postgres,
      ServiceFleet fleet) {
    if (!Files.isReadable(Path.of("/proc/self/stat"))) {
      return new CpuAccountant(
          "", Optional.of("no /proc/<pid>/stat to read: the table needs Linux"));
    }
    List<String> elsewhere = new ArrayList<>();
    elsewhere.add(
        "The "
            + IOX_JVM
            + " holds the load, the payment provider simulator, the webhook and TCP proxies and"
            + " the verifier");
    String ioxJvm = IOX_JVM;
    if (brokerInThisJvm) {
      ioxJvm = IOX_JVM + " (with the Kafka broker)";
    } else if (cluster.isEmpty()) {
      elsewhere.add("Kafka runs elsewhere (IOX_KAFKA_BOOTSTRAP) and has no row");
    }
    boolean postgresHere = !postgres.postmasters().isEmpty();
    if (!postgresHere) {
      elsewhere.add("PostgreSQL runs elsewhere (IOX_JDBC_URL) and has no row");
    }
    CpuAccountant accountant = new CpuAccountant(String.join("; ", elsewhere));
    cluster.ifPresent(brokers -> accountant.watch(BROKERS, () -> own(brokers.brokerProcesses())));
    Map<String, List<ServiceProcess>> services = new LinkedHashMap<>();
    for (ServiceProcess instance : fleet.all()) {
      services.computeIfAbsent(serviceOf(instance.name()), name -> new ArrayList<>()).add(instance);
    }
    services.forEach(
        (service, instances) ->
            accountant.watch(
                service,
                () ->
                    own(
                        instances.stream()
                            .flatMap(instance -> instance.process().stream())
                            .toList())));
    if (postgresHere) {
      accountant.watch(POSTGRES, () -> withBackends(postgres.postmasters()));
    }
    accountant.watch(ioxJvm, () -> own(List.of(ProcessHandle.current())));
    return accountant;
  }

  /** {@code order-consumer-2} belongs to {@code order-consumer}. */
  static String serviceOf(String instance) {
    return instance.replaceFirst("-\\d+$", "");
  }

  void watch(String component, Source source) {
    sources.put(component, source);
    accounts.put(component, new HashMap<>());
  }

  /** Every process running now counts from here; the machine's busy time too. */
  synchronized void start() {
    machineAtStart = MachineLoad.Sample.read();
    started = true;
    record(true);
  }

  /** Reads every component's processes; the progress sampler calls it once a second. */
  synchronized void sample() {
    if (started) {
      record(false);
    }
  }

  /** A last sample; samples after it change nothing. */
  synchronized void stop() {
    if (started) {
      record(false);
      machineBusy = MachineLoad.since(machineAtStart).map(MachineLoad::busyCpuSeconds);
      started = false;
    }
  }

  private void record(boolean atStart) {
    sources.forEach(
        (component, source) -> {
          Map<ProcessKey, Account> processes = accounts.get(component);
          for (Reading reading : source.read()) {
            ProcessKey key = new ProcessKey(reading.pid(), reading.startTicks());
            Account account =
                processes.computeIfAbsent(key, first -> new Account(atStart ? reading.ticks() : 0));
            // A backend that exits between the postmaster's reading and its own is missing from
            // one sum: the next one finds it among the reaped. A sum never goes back.
            account.last = Math.max(account.last, reading.ticks());
          }
        });
  }

  /** CPU-seconds and processes per component since {@link #start()}, in the order watched. */
  synchronized Map<String, CpuByComponent.Used> used() {
    Map<String, CpuByComponent.Used> used = new LinkedHashMap<>();
    accounts.forEach(
        (component, processes) ->
            used.put(
                component,
                new CpuByComponent.Used(
                    processes.size(),
                    processes.values().stream()
                            .mapToLong(account -> account.last - account.baseline)
                            .sum()
                        / MachineLoad.TICKS_PER_SECOND)));
    return used;
  }

  /** The table for the orders settled until {@link #stop()}. */
  synchronized CpuByComponent result(long settledOrders) {
    if (unavailable.isPresent()) {
      return CpuByComponent.unavailable(unavailable.get());
    }
    stop();
    return CpuByComponent.of(used(), settledOrders, machineBusy, note);
  }

  /** Processes whose own CPU counts: JVMs, whose reaped children belong to other components. */
  private static List<Reading> own(List<ProcessHandle> processes) {
    List<Reading> readings = new ArrayList<>();
    for (ProcessHandle process : processes) {
      ProcStat.read(process.pid())
          .ifPresent(
              stat -> readings.add(new Reading(stat.pid(), stat.startTicks(), stat.ownTicks())));
    }
    return readings;
  }

  /**
   * A postmaster with the backends it reaped (its children's CPU, once it waited for them) and
   * those still running. The postmaster is read first: a backend that exits in between is then
   * missing once, never counted twice.
   */
  private static List<Reading> withBackends(List<ProcessHandle> postmasters) {
    List<Reading> readings = new ArrayList<>();
    for (ProcessHandle postmaster : postmasters) {
      Optional<ProcStat> stat = ProcStat.read(postmaster.pid());
      if (stat.isEmpty()) {
        continue;
      }
      long ticks = stat.get().withReapedChildrenTicks();
      for (ProcessHandle backend : postmaster.children().toList()) {
        ticks += ProcStat.read(backend.pid()).map(ProcStat::ownTicks).orElse(0L);
      }
      readings.add(new Reading(stat.get().pid(), stat.get().startTicks(), ticks));
    }
    return readings;
  }
}
