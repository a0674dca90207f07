package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fault.FaultLog;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.DurationConverter;
import dev.inboxoutbox.devstack.KafkaCluster;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.devstack.StopRequest;
import dev.inboxoutbox.devstack.StopSignal;
import dev.inboxoutbox.orders.load.LoadShares;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "Kill consumers mid-flight and verify exactly-once effects (the main job).",
      "Starts PostgreSQL and Kafka (embedded, three broker processes, unless IOX_JDBC_URL /",
      "IOX_KAFKA_BOOTSTRAP are set), runs order-consumer and payment-consumer processes, produces orders,",
      "SIGKILLs consumers and relay leaders, crashes PostgreSQL, kills brokers, breaks the network to",
      "PostgreSQL and the brokers (added latency, resets, a black hole) for a time-boxed window, restarts",
      "what it killed, waits for quiet, verifies and checks the proof floors. Exit code 0 on PASS, 1 on",
      "any violation (FAIL), 3 when every invariant held but a claimed proof floor was missed",
      "(INCONCLUSIVE), 2 on invalid options, 130 when stopped."
    })
public final class ChaosCommand implements Callable<Integer> {

  /** The shell's code for a command ended by Ctrl-C. */
  private static final int STOPPED_BY_SIGNAL = 130;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--seed",
      paramLabel = "SEED",
      description = "Random seed (default: random, printed).")
  Long seed;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "120s",
      converter = DurationConverter.class,
      description =
          "The load-and-fault window; the load is paced by what the pipeline settles, then the run"
              + " settles and verifies (default ${DEFAULT-VALUE}; --quick "
              + RunProfile.QUICK_WINDOW_SECONDS
              + " s, --long "
              + RunProfile.LONG_WINDOW_SECONDS
              + " s).")
  Duration window;

  @Option(
      names = "--orders",
      paramLabel = "COUNT",
      description =
          "A fixed number of distinct orders at --rate instead of a time-boxed window; the faults"
              + " go on until --min-kills and the claimed floors of the infrastructure faults.")
  Integer orders;

  @Option(
      names = "--rate",
      paramLabel = "PER_SECOND",
      defaultValue = "150",
      description =
          "Orders per second: the ceiling of a time-boxed load, the rate of --orders (default"
              + " ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--order-instances",
      paramLabel = "COUNT",
      defaultValue = "3",
      description =
          "order-consumer processes (default ${DEFAULT-VALUE}; 2 with --quick, --no-faults and"
              + " --inbox-price).")
  int orderInstances;

  @Option(
      names = "--payment-instances",
      paramLabel = "COUNT",
      defaultValue = "3",
      description =
          "payment-consumer processes (default ${DEFAULT-VALUE}; 2 with --quick, --no-faults and"
              + " --inbox-price).")
  int paymentInstances;

  @Option(
      names = "--kill-every-min",
      paramLabel = "DURATION",
      defaultValue = "1500ms",
      converter = DurationConverter.class,
      description = "Shortest pause between two kills, e.g. 500ms, 2s (default ${DEFAULT-VALUE}).")
  Duration killMin;

  @Option(
      names = "--kill-every-max",
      paramLabel = "DURATION",
      defaultValue = "3500ms",
      converter = DurationConverter.class,
      description = "Longest pause between two kills (default ${DEFAULT-VALUE}).")
  Duration killMax;

  @Option(
      names = "--min-kills",
      paramLabel = "COUNT",
      defaultValue = "20",
      description = "With --orders, keep killing until this many (default ${DEFAULT-VALUE}).")
  int minKills;

  @Option(
      names = "--restart-delay",
      paramLabel = "DURATION",
      defaultValue = "500ms",
      converter = DurationConverter.class,
      description = "Pause before a killed process is started again (default ${DEFAULT-VALUE}).")
  Duration restartDelay;

  @Option(
      names = "--crash-point-probability",
      paramLabel = "PROBABILITY",
      defaultValue = "0.0008",
      description =
          "Chance per batch that a process halts at a named crash point (default ${DEFAULT-VALUE}).")
  double crashPoints;

  @Option(
      names = "--no-dedup",
      description =
          "Negative control: the services get a key extractor that makes every delivery look"
              + " new to the inbox, so repeats apply again; the verifier must then fail.")
  boolean noDedup;

  @Option(
      names = "--reorder-consumer",
      description =
          "Negative control: the order service applies each batch last record first, so a"
              + " CancelOrder can reach its order before the order exists; the verifier must then"
              + " fail.")
  boolean reorderConsumer;

  @Option(
      names = "--drop-refunds",
      description =
          "Negative control: payment-consumer loses every refund request, so cancelled orders"
              + " whose charge was captured keep the money; the verifier must then fail.")
  boolean dropRefunds;

  @CommandLine.Mixin LoadShares shares = new LoadShares();

  @CommandLine.Mixin RunDirectories directories = new RunDirectories();

  @Option(
      names = "--webhook-duplicate-share",
      paramLabel = "SHARE",
      defaultValue = "0.3",
      description =
          "Share of provider webhooks delivered twice, 0 to 1 (default ${DEFAULT-VALUE}).")
  double webhookDuplicates;

  @Option(
      names = "--quiescence-timeout",
      paramLabel = "DURATION",
      defaultValue = "600s",
      converter = DurationConverter.class,
      description =
          "How long to wait for the system to go quiet after the load before verifying (default ${DEFAULT-VALUE}).")
  Duration quiescence;

  @Option(
      names = "--network-faults",
      paramLabel = "KINDS",
      defaultValue = "latency",
      description =
          "Network faults between the services and PostgreSQL or, with the run's own cluster, a"
              + " broker, injected in turn: any of latency, reset, blackhole, or none (default"
              + " ${DEFAULT-VALUE}).")
  String networkFaults;

  @Option(
      names = "--network-fault-every",
      paramLabel = "DURATION",
      defaultValue = "15s",
      converter = DurationConverter.class,
      description = "From one network fault's start to the next one's (default ${DEFAULT-VALUE}).")
  Duration networkFaultEvery;

  @Option(
      names = "--network-fault-first-after",
      paramLabel = "DURATION",
      defaultValue = "8s",
      converter = DurationConverter.class,
      description =
          "When the first network fault starts after the load (default ${DEFAULT-VALUE}).")
  Duration networkFaultFirstAfter;

  @Option(
      names = "--network-fault-duration",
      paramLabel = "DURATION",
      defaultValue = "4s",
      converter = DurationConverter.class,
      description = "How long added latency or a black hole lasts (default ${DEFAULT-VALUE}).")
  Duration networkFaultDuration;

  @Option(
      names = "--network-latency",
      paramLabel = "DURATION",
      defaultValue = "200ms",
      converter = DurationConverter.class,
      description = "Added delay per chunk and direction (default ${DEFAULT-VALUE}).")
  Duration networkLatency;

  @Option(
      names = "--faults",
      paramLabel = "KINDS",
      description =
          "Fault kinds to inject, comma-separated, from: process-kill, crash-point, postgres-crash,"
              + " postgres-failover, broker-kill (default: all but postgres-failover; with --quick"
              + " without broker-kill; with --long all). postgres-failover runs PostgreSQL as a"
              + " primary with a synchronous standby.")
  String faults;

  @Option(
      names = "--quick",
      description =
          "The quick profile: one in-JVM Kafka broker instead of a cluster of three processes, so"
              + " no broker-kill; a PostgreSQL crash every "
              + RunProfile.QUICK_POSTGRES_CRASH_EVERY_SECONDS
              + " s and a network fault every "
              + RunProfile.QUICK_NETWORK_FAULT_EVERY_SECONDS
              + " s; options given explicitly win.")
  boolean quick;

  @Option(
      names = "--no-faults",
      description =
          "A run without faults, to measure the pipeline: no kill, no crash point, no PostgreSQL,"
              + " broker or network fault, the 3-broker cluster unless --kafka-brokers 1; no proof"
              + " floor claimed. Raise --rate to find the most it settles.")
  boolean noFaults;

  @Option(
      names = "--inbox-price",
      description =
          "The guarantee's end-to-end price: pairs of runs without faults (--repeat), the"
              + " services with their inboxes and with them off, in turn; prints orders settled per"
              + " second and CPU per order of each, their ratio and the target (>= 0.85). Each run"
              + " a "
              + RunProfile.INBOX_PRICE_WINDOW_SECONDS
              + " s window at up to "
              + RunProfile.INBOX_PRICE_RATE
              + " orders/s, without client retries, reused keys, duplicate webhooks or cancels.")
  boolean inboxPrice;

  @Option(
      names = "--repeat",
      paramLabel = "PAIRS",
      description =
          "With --inbox-price: pairs of runs, one of each arm (default "
              + InboxPrice.DEFAULT_PAIRS
              + ").")
  Integer repeat;

  @Option(
      names = "--long",
      description =
          "The long profile: a "
              + RunProfile.LONG_WINDOW_SECONDS
              + " s window (with --orders, --min-kills "
              + RunProfile.LONG_MIN_KILLS
              + "), every fault kind, a PostgreSQL crash, a"
              + " failover and a broker kill about every "
              + RunProfile.LONG_INFRASTRUCTURE_EVERY_SECONDS
              + " s, every network fault in turn; options given explicitly win.")
  boolean longRun;

  @Option(
      names = "--kafka-brokers",
      paramLabel = "COUNT",
      description =
          "3: a KRaft cluster of broker processes (the default with broker-kill); 1: the in-JVM"
              + " broker (the default otherwise).")
  Integer kafkaBrokers;

  @Option(
      names = "--postgres-crash-every",
      paramLabel = "DURATION",
      defaultValue = "40s",
      converter = DurationConverter.class,
      description =
          "Time from the end of one PostgreSQL crash to the next; the first comes after half of it"
              + " (default ${DEFAULT-VALUE}).")
  Duration postgresCrashEvery;

  @Option(
      names = "--postgres-down",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How long PostgreSQL stays down after its SIGKILL (default ${DEFAULT-VALUE}).")
  Duration postgresDown;

  @Option(
      names = "--postgres-failover-every",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "Time from the end of one failover (the primary SIGKILLed, its standby promoted, the old"
              + " primary rebuilt as the new standby) to the next; the first comes after half of"
              + " it (default ${DEFAULT-VALUE}).")
  Duration postgresFailoverEvery;

  @Option(
      names = "--unsafe-failover",
      description =
          "Negative control of postgres-failover: the standby stays asynchronous and its"
              + " replication is held back before each failover until the primary alone has"
              + " committed orders, so commits the services saw acknowledged are lost; the"
              + " verifier must then fail.")
  boolean unsafeFailover;

  @Option(
      names = "--broker-kill-every",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "Time from the end of one broker kill to the next; the first comes after half of it"
              + " (default ${DEFAULT-VALUE}).")
  Duration brokerKillEvery;

  @Option(
      names = "--broker-down",
      paramLabel = "DURATION",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How long a killed broker stays down (default ${DEFAULT-VALUE}).")
  Duration brokerDown;

  @Override
  public Integer call() throws Exception {
    if ((quick ? 1 : 0) + (longRun ? 1 : 0) + (noFaults || inboxPrice ? 1 : 0) > 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--quick, --long and --no-faults are profiles: choose one (--inbox-price runs without"
              + " faults)");
    }
    requireInboxPriceOptions();
    if (noFaults || inboxPrice) {
      for (String option : RunProfile.FAULT_OPTIONS) {
        if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              (noFaults ? "--no-faults" : "--inbox-price")
                  + " injects no fault: "
                  + option
                  + " has no place");
        }
      }
    }
    if (noFaults) {
      RunProfile.FAULT_FREE.applyTo(this, spec.commandLine().getParseResult());
    }
    if (inboxPrice) {
      RunProfile.INBOX_PRICE.applyTo(this, spec.commandLine().getParseResult());
    }
    if (quick) {
      RunProfile.QUICK.applyTo(this, spec.commandLine().getParseResult());
    }
    if (longRun) {
      RunProfile.LONG.applyTo(this, spec.commandLine().getParseResult());
    }
    if (window.isZero() || window.isNegative()) {
      // Before anything is derived from it: a fault interval of 0 would be reported instead.
      throw new CommandLine.ParameterException(
          spec.commandLine(), "duration must be positive, was " + window);
    }
    if (!quick && !longRun && orders == null) {
      RunProfile.fitFaultsToWindow(this, spec.commandLine().getParseResult());
    }
    long chosenSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
    Path root = directories.repoRoot();
    ChaosOptions options;
    NetworkChaos.Settings network;
    FaultOptions faultOptions;
    ProofFloors floors;
    try {
      if (orders != null && orders <= 0) {
        throw new IllegalArgumentException(
            "orders must be positive, was "
                + orders
                + "; without --orders the run is time-boxed by --duration");
      }
      network =
          new NetworkChaos.Settings(
              NetworkChaos.Fault.parseList(networkFaults),
              networkFaultFirstAfter,
              networkFaultEvery,
              networkLatency,
              networkFaultDuration);
      java.util.Set<FaultLog.Kind> kinds =
          FaultOptions.parseKinds(faults != null ? faults : FaultOptions.DEFAULT_KINDS);
      if (quick) {
        kinds =
            kinds.stream()
                .filter(kind -> kind != FaultLog.Kind.BROKER_KILL)
                .collect(java.util.stream.Collectors.toSet());
      }
      faultOptions =
          new FaultOptions(
              kinds,
              kafkaBrokers != null
                  ? kafkaBrokers
                  : !quick && kinds.contains(FaultLog.Kind.BROKER_KILL) ? KafkaCluster.BROKERS : 1,
              postgresCrashEvery,
              postgresDown,
              postgresFailoverEvery,
              brokerKillEvery,
              brokerDown,
              unsafeFailover);
      options =
          new ChaosOptions(
              chosenSeed,
              orders == null ? 0 : orders,
              window,
              rate,
              orderInstances,
              paymentInstances,
              killMin,
              killMax,
              faultOptions.includes(FaultLog.Kind.PROCESS_KILL) ? minKills : 0,
              restartDelay,
              faultOptions.includes(FaultLog.Kind.CRASH_POINT) ? crashPoints : 0,
              negativeControl(),
              shares.retryShare,
              shares.conflictShare,
              shares.malformedShare,
              shares.cancelShare,
              webhookDuplicates,
              quiescence,
              root,
              directories.reports());
      floors = proofFloors(options, faultOptions, network);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    // A stop signal interrupts the run: its resources then close in order, as after a failure.
    StopRequest stop = StopSignal.interruptOnFirst(Thread.currentThread());
    try {
      if (inboxPrice) {
        return priceTheInbox(options, faultOptions, network, floors, stop);
      }
      return new ChaosRun(options, faultOptions, network, floors, stop, System.out)
          .run()
          .verdict()
          .exitCode();
    } catch (Exception e) {
      if (!stop.getAsBoolean()) {
        throw e;
      }
      System.out.printf(
          "%niox chaos: stopped before the verdict; every process the run started is stopped%n");
      return STOPPED_BY_SIGNAL;
    }
  }

  private int priceTheInbox(
      ChaosOptions options,
      FaultOptions faultOptions,
      NetworkChaos.Settings network,
      ProofFloors floors,
      StopRequest stop)
      throws Exception {
    int pairs = repeat == null ? InboxPrice.DEFAULT_PAIRS : repeat;
    Optional<MachineLoad.Sample> machineAtStart = MachineLoad.Sample.read();
    InboxPrice.Result result =
        InboxPrice.measure(
            options,
            pairs,
            arm ->
                InboxPrice.Sample.of(
                    new ChaosRun(arm, faultOptions, network, floors, stop, System.out).run()),
            stop,
            System.out);
    BenchFigures figures = result.figures();
    MachineLoad.since(machineAtStart).ifPresent(machine -> figures.note(machine.describe()));
    System.out.printf(
        "%n%s: %d pair%s of runs without faults, a %d s window each%n",
        InboxPrice.PART, pairs, pairs == 1 ? "" : "s", options.window().toSeconds());
    figures.printTable(System.out);
    Path json =
        options
            .reportDirectory()
            .resolve("inbox-price-" + Instant.now().toString().replace(':', '-') + ".json");
    Files.createDirectories(options.reportDirectory());
    Files.writeString(json, figures.toJson());
    System.out.printf("figures: %s%n", json);
    return result.exitCode();
  }

  /** --repeat counts the pairs of --inbox-price; its runs carry no repeat of a key. */
  private void requireInboxPriceOptions() {
    CommandLine.ParseResult given = spec.commandLine().getParseResult();
    if (!inboxPrice) {
      if (repeat != null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--repeat counts the pairs of runs of --inbox-price");
      }
      return;
    }
    if (repeat != null && repeat < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--repeat must be at least 1, was " + repeat);
    }
    if (noDedup || reorderConsumer || dropRefunds) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--inbox-price runs the services as they are and with their inboxes off: no negative"
              + " control");
    }
    for (String option : RunProfile.INBOX_PRICE_ZERO_SHARES) {
      if (given.hasMatchedOption(option)
          && given.matchedOptionValue(option, 0.0).doubleValue() > 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--inbox-price runs a load without repeats, which the services with their inboxes off"
                + " would apply again, and without cancels, which they cannot hold until the"
                + " order is refused: "
                + option
                + " must be 0");
      }
    }
  }

  /**
   * The floors this run claims: none with --quick (a smoke run); otherwise those of the chosen
   * fault kinds, scaled down for a window shorter than the default one; a run of fewer orders than
   * the settled-orders floor does not claim it.
   */
  ProofFloors proofFloors(
      ChaosOptions options, FaultOptions faultOptions, NetworkChaos.Settings network) {
    if (quick) {
      return ProofFloors.none("the quick profile is a smoke run: it claims no floor");
    }
    if (noFaults || inboxPrice) {
      return ProofFloors.none("a run without faults measures the pipeline: it claims no floor");
    }
    ProofFloors floors =
        ProofFloors.forFaults(
            faultOptions.kinds(),
            !network.faults().isEmpty(),
            options.retryShare(),
            options.webhookDuplicateShare());
    if (options.timeBoxed()) {
      return floors.scaled(
          (double) options.window().toMillis() / ProofFloors.DEFAULT_WINDOW.toMillis());
    }
    return options.orders() < ProofFloors.Floor.ORDERS_SETTLED.defaultCount()
        ? floors.without(ProofFloors.Floor.ORDERS_SETTLED, "fewer orders than the floor (--orders)")
        : floors;
  }

  private NegativeControl negativeControl() {
    int chosen = (noDedup ? 1 : 0) + (reorderConsumer ? 1 : 0) + (dropRefunds ? 1 : 0);
    if (chosen > 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--no-dedup, --reorder-consumer and --drop-refunds are separate controls: choose one");
    }
    if (noDedup) {
      return NegativeControl.NO_DEDUP;
    }
    if (reorderConsumer) {
      return NegativeControl.REORDER;
    }
    return dropRefunds ? NegativeControl.DROP_REFUNDS : NegativeControl.NONE;
  }
}
