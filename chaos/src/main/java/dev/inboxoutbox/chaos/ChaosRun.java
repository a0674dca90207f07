package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fault.FaultLog;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.fault.InfrastructureFaults;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.fault.ProcessFaultPace;
import dev.inboxoutbox.chaos.fleet.ServiceFleet;
import dev.inboxoutbox.chaos.fleet.ServiceLaunch;
import dev.inboxoutbox.chaos.fleet.ServiceProcess;
import dev.inboxoutbox.chaos.fleet.WebhookProxy;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.report.Report;
import dev.inboxoutbox.chaos.report.Throughput;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.RunEvidence;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verifier;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.FreePorts;
import dev.inboxoutbox.devstack.KafkaCluster;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.devstack.StopRequest;
import dev.inboxoutbox.devstack.TcpProxy;
import dev.inboxoutbox.orders.load.LoadProducer;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import dev.inboxoutbox.provider.WebhookStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The main job: starts (or connects to) PostgreSQL and Kafka, runs order-consumer and
 * payment-consumer as real processes ({@link ServiceFleet}), produces orders (for a window, paced
 * by the drain: {@link ClosedLoopPacer}; or a fixed number), SIGKILLs instances and relay leaders
 * at random moments (and lets them halt at named crash points), restarts them, waits for quiet
 * ({@link Progress}), verifies that every effect happened exactly once ({@link Verifier}) and
 * checks what the run did against its {@link ProofFloors} ({@link Report}).
 */
final class ChaosRun {

  /**
   * How long a cancel waits for its order's charge: long enough for a payment slowed by restarts,
   * short enough that the load ends soon after the window.
   */
  private static final Duration CANCEL_ONCE_CHARGED_PATIENCE = Duration.ofSeconds(60);

  private final ChaosOptions options;
  private final NetworkChaos.Settings network;
  private final FaultOptions faultOptions;
  private final ProofFloors floors;
  private final StopRequest stop;
  private final PrintStream out;
  private final Random random;

  ChaosRun(
      ChaosOptions options,
      FaultOptions faultOptions,
      NetworkChaos.Settings network,
      ProofFloors floors,
      StopRequest stop,
      PrintStream out) {
    this.options = options;
    this.faultOptions = faultOptions;
    this.floors = floors;
    this.stop = stop;
    this.network = network;
    this.out = out;
    this.random = new Random(options.seed());
  }

  /**
   * Runs, writes the report and returns it (its verdict is the run's), in phases: the stack and the
   * services start ({@link #startServices}), the load runs under faults ({@link #loadAndFaults}),
   * the run settles ({@link #settle}), and the verifier and the report end it ({@link
   * #verifyAndReport}). This method holds what every phase uses and closes it at the end.
   */
  Report run() throws Exception {
    Instant started = Instant.now();
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    announce();
    Path runDirectory =
        options.reportDirectory().resolve("chaos-" + started.toString().replace(':', '-'));
    Path logs = Files.createDirectories(runDirectory.resolve("logs"));
    String secret = "whsec_" + UUID.randomUUID();
    // Crash points fire while this file exists: during the kill phase, not while the run drains.
    Path crashPointsArmed = runDirectory.resolve("crash-points-armed");
    armCrashPoints(crashPointsArmed, true);

    DevStackSettings settings = DevStackSettings.fromEnvironment();
    // A killed member's partitions wait for its session to expire. The embedded broker accepts 3 s;
    // an external one may keep Kafka's 6 s floor.
    String sessionTimeoutMs = settings.kafkaBootstrap().isPresent() ? "6000" : "3000";
    out.printf(
        "faults: %s%n", faultOptions.kinds().stream().map(FaultOptions::nameOf).sorted().toList());
    // The cluster's processes start while PostgreSQL does; the stack then treats it as external.
    Optional<KafkaCluster> cluster =
        faultOptions.kafkaBrokers() == KafkaCluster.BROKERS && settings.kafkaBootstrap().isEmpty()
            ? Optional.of(
                stop.start(
                    () ->
                        KafkaCluster.start(
                            runDirectory.resolve("kafka"), !network.faults().isEmpty())))
            : Optional.empty();
    DevStackSettings stackSettings = stackSettings(settings, cluster);
    try (AutoCloseable stopCluster = () -> cluster.ifPresent(KafkaCluster::close);
        DevStack stack = stop.start(() -> DevStack.start(stackSettings));
        Database ordersDb = stack.postgres().createDatabase();
        Database paymentsDb = stack.postgres().createDatabase();
        ServiceFleet fleet = new ServiceFleet(random, options.restartDelay(), out);
        WebhookProxy proxy = new WebhookProxy(fleet.paymentServices());
        // The services reach PostgreSQL through this proxy; the run's own checks go direct.
        TcpProxy postgresProxy =
            new TcpProxy("postgres", TcpProxy.jdbcUpstream(ordersDb.jdbcUrl()));
        PaymentProviderSimulator provider =
            PaymentProviderSimulator.builder()
                .port(0)
                .webhookSecret(secret)
                .webhookUrl(proxy.url())
                .duplicateShare(options.webhookDuplicateShare())
                .delay(Duration.ZERO, Duration.ofMillis(100))
                .webhookThreads(16)
                .failureShare(0.05)
                .seed(options.seed())
                .build()
                .start()) {
      // The services reach the cluster through its proxies; the run's own clients go direct.
      String bootstrap =
          cluster
              .map(KafkaCluster::proxiedBootstrapServers)
              .orElse(stack.kafka().bootstrapServers());
      prepareStack(cluster, stack, ordersDb, paymentsDb);
      out.printf(
          "stack: %s, %s; provider on port %d; logs in %s%n",
          stack.postgres().description(),
          cluster.map(KafkaCluster::description).orElse(stack.kafka().description()),
          provider.port(),
          logs);
      startServices(
          fleet,
          ordersDb,
          paymentsDb,
          postgresProxy,
          provider,
          bootstrap,
          sessionTimeoutMs,
          secret,
          crashPointsArmed,
          logs,
          started);

      CpuAccountant cpu =
          CpuAccountant.forRun(
              cluster,
              cluster.isEmpty() && stackSettings.kafkaBootstrap().isEmpty(),
              stack.postgres(),
              fleet);
      cpu.start();
      Instant loadStarted = Instant.now();
      FaultLog faults = new FaultLog(loadStarted);
      fleet.recordFaultsIn(faults);
      NetworkChaos networkChaos =
          new NetworkChaos(networkTargets(postgresProxy, cluster), network, faults, out);
      ExecutorService background = Executors.newSingleThreadExecutor();
      fleet.superviseCrashes();
      try (InfrastructureFaults infrastructure =
              new InfrastructureFaults(
                  faultOptions,
                  faults,
                  stack.postgres().processes(),
                  stack.postgres().replication(),
                  cluster,
                  () -> Verifier.count(ordersDb.dataSource(), "SELECT count(*) FROM orders"),
                  random,
                  out);
          LoadProducer load =
              new LoadProducer(
                  bootstrap,
                  options.seed(),
                  options.retryShare(),
                  options.conflictShare(),
                  options.malformedShare(),
                  options.cancelShare())) {
        Progress progress = new Progress(fleet, load, ordersDb, loadStarted, cpu, out);
        Under run =
            new Under(
                fleet,
                ordersDb,
                paymentsDb,
                provider,
                bootstrap,
                load,
                progress,
                faults,
                cpu,
                loadStarted,
                logs);
        Instant loadEnded =
            loadAndFaults(run, infrastructure, networkChaos, background, crashPointsArmed);
        settle(run, loadEnded, background);
        return verifyAndReport(run, loadEnded, started, cpuAtStart, runDirectory);
      } finally {
        networkChaos.stop();
        background.shutdownNow();
      }
    }
  }

  /** PostgreSQL replicated when the run fails it over; the run's own brokers when it has them. */
  private DevStackSettings stackSettings(
      DevStackSettings settings, Optional<KafkaCluster> cluster) {
    DevStackSettings withPostgres =
        faultOptions.includes(FaultLog.Kind.POSTGRES_FAILOVER)
                && settings.postgresMode() == DevStackSettings.PostgresMode.EMBEDDED
            ? settings.withPostgresMode(DevStackSettings.PostgresMode.REPLICATED)
            : settings;
    return cluster
        .map(brokers -> withPostgres.withKafkaBootstrap(brokers.bootstrapServers()))
        .orElse(withPostgres);
  }

  /** Readies the stack for the run's faults: brokers up, commits that outlive a crash. */
  private void prepareStack(
      Optional<KafkaCluster> cluster, DevStack stack, Database ordersDb, Database paymentsDb)
      throws Exception {
    if (cluster.isPresent()) {
      cluster.get().awaitReady(Duration.ofMinutes(5));
    }
    if (faultOptions.includes(FaultLog.Kind.POSTGRES_CRASH)
        || faultOptions.includes(FaultLog.Kind.POSTGRES_FAILOVER)) {
      ordersDb.commitsSurviveServerCrashes();
      paymentsDb.commitsSurviveServerCrashes();
    }
    if (faultOptions.includes(FaultLog.Kind.POSTGRES_FAILOVER)) {
      // A commit acknowledged to a service survives a failover only once the standby has it;
      // the negative control leaves the standby asynchronous.
      stack
          .postgres()
          .replication()
          .ifPresent(pair -> pair.synchronousStandby(!faultOptions.unsafeFailover()));
    }
  }

  /** The run's first line: its seed, its load and its processes. */
  private void announce() {
    out.printf(
        "iox chaos: seed %d, %s, %d order-consumer + %d payment-consumer processes%s%n",
        options.seed(),
        options.timeBoxed()
            ? String.format(
                "a %d s load window paced by the drain (at most %d orders/s)",
                options.window().toSeconds(), options.ratePerSecond())
            : String.format("%d orders at %d/s", options.orders(), options.ratePerSecond()),
        options.orderInstances(),
        options.paymentInstances(),
        options.negativeControl() == NegativeControl.NONE
            ? ""
            : ", NEGATIVE CONTROL (" + options.negativeControl().description() + ")");
  }

  /** Starts the order and payment services, each instance a process of its own, and waits. */
  private void startServices(
      ServiceFleet fleet,
      Database ordersDb,
      Database paymentsDb,
      TcpProxy postgresProxy,
      PaymentProviderSimulator provider,
      String bootstrap,
      String sessionTimeoutMs,
      String secret,
      Path crashPointsArmed,
      Path logs,
      Instant started)
      throws Exception {
    Map<String, String> chaos = ServiceLaunch.chaosProperties(options, crashPointsArmed);
    Map<String, String> orderProperties =
        throughProxy(
            ServiceLaunch.serviceProperties(ordersDb, bootstrap, sessionTimeoutMs, chaos),
            postgresProxy);
    Map<String, String> paymentExtra = new HashMap<>(chaos);
    paymentExtra.putAll(
        ServiceLaunch.paymentProviderProperties(provider.baseUrl().toString(), secret));
    // Topics have three partitions and there are two instances: with two listener threads each,
    // every partition has a thread of its own, also while one instance is down. Payment stages
    // wait on HTTP calls and round trips, not on each other; order batches wait on the same
    // stock rows, so more threads there would only wait.
    paymentExtra.put("spring.kafka.listener.concurrency", "2");
    Map<String, String> paymentProperties =
        throughProxy(
            ServiceLaunch.serviceProperties(paymentsDb, bootstrap, sessionTimeoutMs, paymentExtra),
            postgresProxy);
    ServiceLaunch.Jars jars =
        ServiceLaunch.prepare(options.repoRoot(), orderProperties, paymentProperties, logs, out);
    for (int i = 1; i <= options.orderInstances(); i++) {
      fleet.addOrderService(
          new ServiceProcess(
              "order-consumer-" + i,
              jars.orders(),
              FreePorts.belowEphemeralRange(),
              orderProperties,
              logs));
    }
    for (int i = 1; i <= options.paymentInstances(); i++) {
      fleet.addPaymentService(
          new ServiceProcess(
              "payment-consumer-" + i,
              jars.payments(),
              FreePorts.belowEphemeralRange(),
              paymentProperties,
              logs));
    }
    fleet.start(Duration.ofMinutes(3));
    out.printf(
        "all %d processes up after %d s (%s)%n",
        fleet.all().size(),
        Duration.between(started, Instant.now()).toSeconds(),
        jars.orders().description());
  }

  /**
   * The load-and-fault phase: orders go out (paced by the drain, or a fixed number) while
   * processes, PostgreSQL, brokers and the network fail; returns when the load is over and every
   * fault has ended.
   */
  private Instant loadAndFaults(
      Under run,
      InfrastructureFaults infrastructure,
      NetworkChaos networkChaos,
      ExecutorService background,
      Path crashPointsArmed)
      throws Exception {
    ServiceFleet fleet = run.fleet();
    LoadProducer load = run.load();
    Progress progress = run.progress();
    FaultLog faults = run.faults();
    Instant loadStarted = run.loadStarted();
    load.cancelSomeOnceCharged(
        new ChargedOrders(run.ordersDb(), run.provider()), CANCEL_ONCE_CHARGED_PATIENCE);
    fleet.countKillsWithOrdersInFlight(() -> ordersInFlight(progress, load) > 0);
    ClosedLoopPacer pacer =
        ClosedLoopPacer.live(
            loadStarted,
            options.window(),
            progress::lastKnownCounts,
            () -> load.sent().validKeys().size());
    Future<?> producing =
        background.submit(
            () -> {
              if (options.timeBoxed()) {
                load.send(Integer.MAX_VALUE, options.ratePerSecond(), pacer);
              } else {
                load.send(options.orders(), options.ratePerSecond());
              }
              return null;
            });
    networkChaos.start();
    killWhileLoading(
        fleet,
        infrastructure,
        producing,
        progress,
        loadStarted,
        networkChaos,
        faults,
        crashPointsArmed);
    // The network faults end with the kill phase: the run drains over a clean network, and
    // with every server up.
    networkChaos.stop();
    infrastructure.awaitIdle();
    // The kill phase is over: a crash from here on would only be kill 21, 22... and a restart
    // the drain has to wait for.
    armCrashPoints(crashPointsArmed, false);
    producing.get();
    progress.endLine();
    Instant loadEnded = Instant.now();
    out.printf(
        "load over after %d s: %d orders sent, %d in flight%s; settling%n",
        Duration.between(loadStarted, loadEnded).toSeconds(),
        load.sent().validKeys().size(),
        ordersInFlight(progress, load),
        options.timeBoxed() ? " (at most " + pacer.maxInFlightSeen() + " while paced)" : "");
    return loadEnded;
  }

  /** The settle phase: the held cancels go, then the run waits for quiet with every process up. */
  private void settle(Under run, Instant loadEnded, ExecutorService background) throws Exception {
    LoadProducer load = run.load();
    Progress progress = run.progress();
    // Part of the settling: a run is quiet only once every cancel has gone. The last ones wait
    // for the charge of orders the backlog still holds, for up to half a minute: the progress
    // line goes on meanwhile.
    Future<?> cancelling =
        background.submit(
            () -> {
              load.sendHeldCancels();
              return null;
            });
    try (BackgroundSample sampling =
        new BackgroundSample(progress::sample, Duration.ofSeconds(1))) {
      while (!cancelling.isDone()) {
        sampling.tick(Instant.now());
        Thread.sleep(50);
      }
    }
    cancelling.get();
    Progress.Settled settled =
        progress.awaitQuiescence(
            run.paymentsDb(),
            run.bootstrap(),
            () -> run.provider().webhookStats().pending(),
            options.quiescenceTimeout());
    if (settled.outcome() == Progress.Settled.Outcome.TIMED_OUT) {
      StuckRunEvidence.collect(run.fleet().all(), run.ordersDb().dataSource(), run.logs());
    }
    run.fleet().stopRestarting();
    progress.endLine();
    // The orders settled cost the CPU used until quiet; the verification's own is left out.
    run.cpu().stop();
    out.printf("settle phase: %d s%n", Duration.between(loadEnded, Instant.now()).toSeconds());
    out.println(
        switch (settled.outcome()) {
          case QUIET -> "quiet, every process back up: verifying";
          case STALLED ->
              "nothing in flight and every process up, yet orders still wait for their payment:"
                  + " verifying";
          case TIMED_OUT ->
              "did not go quiet within "
                  + options.quiescenceTimeout()
                  + (settled.down().isEmpty()
                      ? ""
                      : " (not up: " + String.join(", ", settled.down()) + ")")
                  + ": verifying anyway; each service's threads are in its log, PostgreSQL's sessions in "
                  + StuckRunEvidence.SESSIONS_FILE;
        });
  }

  /** Verifies the effects, prints the report and writes it: its verdict is the run's. */
  private Report verifyAndReport(
      Under run,
      Instant loadEnded,
      Instant started,
      Optional<MachineLoad.Sample> cpuAtStart,
      Path runDirectory)
      throws Exception {
    ServiceFleet fleet = run.fleet();
    Database ordersDb = run.ordersDb();
    PaymentProviderSimulator provider = run.provider();
    String bootstrap = run.bootstrap();
    LoadProducer load = run.load();
    Progress progress = run.progress();
    FaultLog faults = run.faults();
    Instant loadStarted = run.loadStarted();
    // The report reads Kafka beside the verifier: each read is mostly waiting on the brokers.
    CompletableFuture<Map<String, Long>> relayResends =
        CompletableFuture.supplyAsync(() -> RunEvidence.relayResendsByTopic(bootstrap));
    CompletableFuture<Map<String, Long>> deadLetters =
        CompletableFuture.supplyAsync(() -> RunEvidence.deadLettersByReason(bootstrap));
    List<Invariant> invariants =
        new Verifier(ordersDb.dataSource(), run.paymentsDb().dataSource(), bootstrap)
            .verify(load.sent(), provider.ledger(), provider.refunds());
    WebhookStats webhooks = provider.webhookStats();
    RunFigures.Summary figures =
        RunFigures.summarise(
            faults.all(),
            RunEvidence.orderTimes(ordersDb.dataSource()),
            load.sent().firstSentAtEpochMillis(),
            loadStarted.toEpochMilli(),
            progress.duplicatesByOperation(),
            load.sent().retries(),
            relayResends.join(),
            webhooks.deliveries() - webhooks.events(),
            deadLetters.join());
    Report report =
        new Report(
            options,
            load.sent().summary(),
            fleet.killCounts(),
            invariants,
            progress.timeline(),
            fleet.killLog().stream()
                .map(kill -> kill.relativeTo(loadStarted.toEpochMilli()))
                .toList(),
            Map.of(
                "webhooks",
                webhooks,
                "ledgerEntries",
                provider.ledger().size(),
                "refunds",
                provider.refunds().size()),
            Duration.between(started, Instant.now()),
            MachineLoad.since(cpuAtStart),
            network,
            figures);
    report.faults(faults.all());
    long settled =
        Verifier.count(
            ordersDb.dataSource(), "SELECT count(*) FROM orders WHERE status <> 'PLACED'");
    report.cpu(run.cpu().result(settled));
    report.throughput(
        Throughput.over(
            progress.timeline(),
            options.timeBoxed()
                ? options.window().toMillis()
                : Duration.between(loadStarted, loadEnded).toMillis(),
            options.timeBoxed()));
    report.floors(floors.evaluate(floorCounts(fleet, faults, figures, settled)));
    report.print(out);
    Path json = report.writeJson(runDirectory);
    Path html = report.writeHtml(runDirectory);
    out.printf("report: %s%n        %s%n", json, html);
    return report;
  }

  /** What the phases after the start share: the processes, the stores, the load and its clock. */
  private record Under(
      ServiceFleet fleet,
      Database ordersDb,
      Database paymentsDb,
      PaymentProviderSimulator provider,
      String bootstrap,
      LoadProducer load,
      Progress progress,
      FaultLog faults,
      CpuAccountant cpu,
      Instant loadStarted,
      Path logs) {}

  /**
   * Kills at random intervals while the load lasts and samples progress once a second. A time-boxed
   * run stops with its window; a run of a fixed number of orders goes on until there were at least
   * {@code min-kills} kills, one fault of each infrastructure kind and, when network faults were
   * chosen, one of them, and until the claimed floors of the infrastructure faults are reached. A
   * time-boxed run that claims the process-fault floor keeps its kills and crash points to {@link
   * #processFaultPace() their pace}.
   */
  private void killWhileLoading(
      ServiceFleet fleet,
      InfrastructureFaults infrastructure,
      Future<?> producing,
      Progress progress,
      Instant loadStarted,
      NetworkChaos networkChaos,
      FaultLog faults,
      Path crashPointsArmed)
      throws InterruptedException, java.util.concurrent.ExecutionException, IOException {
    boolean killing = faultOptions.includes(FaultLog.Kind.PROCESS_KILL);
    Optional<ProcessFaultPace> pace = processFaultPace();
    if (pace.isPresent()) {
      out.printf(
          "process faults paced to %d in the window's first %d s (the floor's %d and a margin)%n",
          pace.get().target(),
          options.processFaultPhase().toSeconds(),
          floors.claimed().get(ProofFloors.Floor.PROCESS_FAULTS));
    }
    // The run armed them before the services started.
    boolean crashPointsArmedNow = true;
    Instant nextKill = Instant.now().plus(killInterval());
    boolean networkFaultDue = !network.faults().isEmpty();
    // A broken setup must not hang a CI run.
    Duration guard = options.timeBoxed() ? options.window().plusMinutes(1) : Duration.ofMinutes(10);
    // A time-boxed run's last seconds are load without faults: its last victims serve again
    // before the window ends. The load may also outlast the window by a send blocked on a broker.
    Instant processFaultsEnd =
        options.timeBoxed() ? loadStarted.plus(options.processFaultPhase()) : Instant.MAX;
    Instant faultsEnd = options.timeBoxed() ? loadStarted.plus(options.faultPhase()) : Instant.MAX;
    boolean processFaultsOver = false;
    boolean faultsOver = false;
    try (BackgroundSample sampling =
        new BackgroundSample(progress::sample, Duration.ofSeconds(1))) {
      while (!producing.isDone()
          || (!options.timeBoxed()
              && ((killing && fleet.totalKills() < options.minKills())
                  || !infrastructure.eachKindInjected()
                  || (networkFaultDue && networkChaos.injected() == 0)
                  || !infrastructureFloorsReached(faults)))) {
        Instant now = Instant.now();
        if (!processFaultsOver && !now.isBefore(processFaultsEnd)) {
          processFaultsOver = true;
          armCrashPoints(crashPointsArmed, false);
          out.printf(
              "%n[%.1fs] kills and crash points over: the last victims serve again%n",
              Duration.between(loadStarted, now).toMillis() / 1000.0);
        }
        if (!faultsOver && !now.isBefore(faultsEnd)) {
          faultsOver = true;
          networkChaos.stop();
          out.printf(
              "%n[%.1fs] faults over: the load goes on without them until the window ends%n",
              Duration.between(loadStarted, now).toMillis() / 1000.0);
        }
        if (!faultsOver) {
          infrastructure.tick(faultsEnd);
        }
        boolean ahead =
            pace.isPresent()
                && pace.get()
                    .ahead(
                        fleet.processFaultsWithOrdersInFlight(),
                        Duration.between(loadStarted, now));
        if (pace.isPresent() && !processFaultsOver && crashPointsArmedNow == ahead) {
          crashPointsArmedNow = !ahead;
          armCrashPoints(crashPointsArmed, crashPointsArmedNow);
        }
        if (!processFaultsOver && killing && !ahead && !now.isBefore(nextKill)) {
          // A kill that found no eligible victim is due again as soon as one is.
          nextKill =
              fleet.killOne(processFaultsEnd) ? now.plus(killInterval()) : now.plusMillis(250);
        }
        sampling.tick(now);
        Thread.sleep(50);
        if (Duration.between(loadStarted, now).compareTo(guard) > 0) {
          break;
        }
      }
    }
  }

  /**
   * The pace of a time-boxed run that claims the process-fault floor; none for a run of a fixed
   * number of orders (it kills until {@code min-kills}) or one that claims no such floor.
   */
  private Optional<ProcessFaultPace> processFaultPace() {
    Long floor = floors.claimed().get(ProofFloors.Floor.PROCESS_FAULTS);
    if (!options.timeBoxed() || floor == null) {
      return Optional.empty();
    }
    return Optional.of(
        ProcessFaultPace.of(
            options.processFaultPhase(),
            floor,
            ProofFloors.Floor.PROCESS_FAULTS.defaultCount(),
            ProofFloors.DEFAULT_WINDOW));
  }

  /** Crash points fire while the file exists: armed on schedule, disarmed ahead of the pace. */
  private static void armCrashPoints(Path crashPointsArmed, boolean armed) throws IOException {
    if (armed) {
      Files.writeString(
          crashPointsArmed, "the services' crash points may fire while this file exists\n");
    } else {
      Files.deleteIfExists(crashPointsArmed);
    }
  }

  /** Whether the claimed floors of PostgreSQL crashes, broker kills and network faults are met. */
  private boolean infrastructureFloorsReached(FaultLog faults) {
    Map<ProofFloors.Floor, Long> counts = infrastructureCounts(faults.all());
    return counts.entrySet().stream()
        .allMatch(count -> count.getValue() >= floors.claimed().getOrDefault(count.getKey(), 0L));
  }

  private static Map<ProofFloors.Floor, Long> infrastructureCounts(List<FaultLog.Fault> faults) {
    Map<ProofFloors.Floor, Long> counts = new EnumMap<>(ProofFloors.Floor.class);
    counts.put(ProofFloors.Floor.POSTGRES_CRASHES, count(faults, FaultLog.Kind.POSTGRES_CRASH));
    counts.put(ProofFloors.Floor.BROKER_LEADER_KILLS, count(faults, FaultLog.Kind.BROKER_KILL));
    counts.put(
        ProofFloors.Floor.NETWORK_FAULTS,
        count(faults, FaultLog.Kind.NETWORK_LATENCY)
            + count(faults, FaultLog.Kind.NETWORK_RESET)
            + count(faults, FaultLog.Kind.NETWORK_BLACKHOLE));
    return counts;
  }

  private static long count(List<FaultLog.Fault> faults, FaultLog.Kind kind) {
    return faults.stream().filter(fault -> fault.kind() == kind).count();
  }

  /** What the run did towards each proof floor. */
  private static Map<ProofFloors.Floor, Long> floorCounts(
      ServiceFleet fleet, FaultLog faults, RunFigures.Summary figures, long settled) {
    Map<ProofFloors.Floor, Long> counts = infrastructureCounts(faults.all());
    counts.put(ProofFloors.Floor.PROCESS_FAULTS, (long) fleet.processFaultsWithOrdersInFlight());
    counts.put(
        ProofFloors.Floor.DUPLICATE_SOURCES,
        figures.duplicateSources().entrySet().stream()
            .filter(source -> !source.getKey().equals("total") && source.getValue() > 0)
            .count());
    counts.put(ProofFloors.Floor.ORDERS_SETTLED, settled);
    return counts;
  }

  /**
   * Orders sent and neither settled nor rejected, by the last counts the progress sampler read (0
   * settled before the first).
   */
  private static long ordersInFlight(Progress progress, LoadProducer load) {
    return Math.max(0, load.sent().validKeys().size() - progress.lastKnownCounts().drained());
  }

  /**
   * The services' settings with the database URL pointing at the proxy, when network faults were
   * chosen: without them the services connect directly and the proxy carries nothing.
   */
  private Map<String, String> throughProxy(Map<String, String> properties, TcpProxy proxy) {
    if (network.faults().isEmpty()) {
      return properties;
    }
    Map<String, String> proxied = new LinkedHashMap<>(properties);
    proxied.put(
        "spring.datasource.url", proxy.jdbcUrlThrough(properties.get("spring.datasource.url")));
    return proxied;
  }

  /** PostgreSQL's proxy, and the brokers' when the run has its own cluster behind proxies. */
  private static List<TcpProxy> networkTargets(
      TcpProxy postgresProxy, Optional<KafkaCluster> cluster) {
    List<TcpProxy> targets = new ArrayList<>(List.of(postgresProxy));
    cluster.ifPresent(brokers -> targets.addAll(brokers.proxies()));
    return targets;
  }

  private Duration killInterval() {
    long min = options.killIntervalMin().toMillis();
    long max = options.killIntervalMax().toMillis();
    return Duration.ofMillis(min + (long) (random.nextDouble() * Math.max(0, max - min)));
  }
}
