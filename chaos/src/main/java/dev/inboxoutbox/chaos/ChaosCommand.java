package dev.inboxoutbox.chaos;

import java.nio.file.Path;
import java.time.Duration;
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
      "Starts PostgreSQL and Kafka (embedded unless IOX_JDBC_URL / IOX_KAFKA_BOOTSTRAP are set), runs",
      "order-consumer and payment-consumer processes, produces orders, SIGKILLs consumers and relay leaders,",
      "restarts them, waits for quiet and verifies. Exit code 1 on any violation, 2 on invalid options."
    })
final class ChaosCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--seed", description = "Random seed (default: random, printed).")
  Long seed;

  @Option(
      names = "--orders",
      defaultValue = "10000",
      description = "Distinct orders to send (default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--rate",
      defaultValue = "150",
      description = "Orders per second (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--order-instances", defaultValue = "2")
  int orderInstances;

  @Option(names = "--payment-instances", defaultValue = "2")
  int paymentInstances;

  @Option(names = "--kill-every-min", defaultValue = "1500ms", converter = DurationConverter.class)
  Duration killMin;

  @Option(names = "--kill-every-max", defaultValue = "3500ms", converter = DurationConverter.class)
  Duration killMax;

  @Option(
      names = "--min-kills",
      defaultValue = "20",
      description = "Keep killing until this many (default ${DEFAULT-VALUE}).")
  int minKills;

  @Option(names = "--restart-delay", defaultValue = "500ms", converter = DurationConverter.class)
  Duration restartDelay;

  @Option(
      names = "--crash-point-probability",
      defaultValue = "0.00005",
      description =
          "Chance per batch that a process halts at a named crash point (default ${DEFAULT-VALUE}).")
  double crashPoints;

  @Option(
      names = "--no-dedup",
      description =
          "Negative control: the services get a key extractor that makes every delivery look"
              + " new to the inbox, so repeats apply again; the verifier must then fail.")
  boolean noDedup;

  @Option(names = "--retry-share", defaultValue = "0.1")
  double retryShare;

  @Option(names = "--conflict-share", defaultValue = "0.02")
  double conflictShare;

  @Option(names = "--malformed-share", defaultValue = "0.01")
  double malformedShare;

  @Option(names = "--webhook-duplicate-share", defaultValue = "0.3")
  double webhookDuplicates;

  @Option(
      names = "--quiescence-timeout",
      defaultValue = "600s",
      converter = DurationConverter.class)
  Duration quiescence;

  @Option(
      names = "--faults",
      description =
          "Fault kinds to inject, comma-separated, from: process-kill, crash-point, postgres-crash,"
              + " broker-kill (default "
              + FaultOptions.DEFAULT_KINDS
              + "; with --quick without broker-kill).")
  String faults;

  @Option(
      names = "--quick",
      description =
          "The quick profile: one in-JVM Kafka broker instead of a cluster of three processes,"
              + " so no broker-kill; every other fault as chosen.")
  boolean quick;

  @Option(
      names = "--kafka-brokers",
      description = "3: a KRaft cluster of broker processes (default); 1: the in-JVM broker.")
  Integer kafkaBrokers;

  @Option(
      names = "--postgres-crash-every",
      defaultValue = "40s",
      converter = DurationConverter.class,
      description =
          "Time from the end of one PostgreSQL crash to the next; the first comes after half of it"
              + " (default ${DEFAULT-VALUE}).")
  Duration postgresCrashEvery;

  @Option(
      names = "--postgres-down",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How long PostgreSQL stays down after its SIGKILL (default ${DEFAULT-VALUE}).")
  Duration postgresDown;

  @Option(
      names = "--broker-kill-every",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "Time from the end of one broker kill to the next; the first comes after half of it"
              + " (default ${DEFAULT-VALUE}).")
  Duration brokerKillEvery;

  @Option(
      names = "--broker-down",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How long a killed broker stays down (default ${DEFAULT-VALUE}).")
  Duration brokerDown;

  @Option(
      names = "--reports",
      defaultValue = "iox-reports",
      description = "Report directory (default ${DEFAULT-VALUE}).")
  Path reports;

  @Option(
      names = "--repo",
      description =
          "Repository root with the built services (default: current directory or IOX_REPO_ROOT).")
  Path repo;

  @Override
  public Integer call() throws Exception {
    long chosenSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
    Path root = Iox.repoRoot(repo);
    ChaosOptions options;
    FaultOptions faultOptions;
    try {
      faultOptions =
          new FaultOptions(
              FaultOptions.parseKinds(
                  faults != null
                      ? faults
                      : quick
                          ? FaultOptions.DEFAULT_KINDS.replace(",broker-kill", "")
                          : FaultOptions.DEFAULT_KINDS),
              kafkaBrokers != null ? kafkaBrokers : quick ? 1 : KafkaCluster.BROKERS,
              postgresCrashEvery,
              postgresDown,
              brokerKillEvery,
              brokerDown);
      options =
          new ChaosOptions(
              chosenSeed,
              orders,
              rate,
              orderInstances,
              paymentInstances,
              killMin,
              killMax,
              faultOptions.includes(FaultLog.Kind.PROCESS_KILL) ? minKills : 0,
              restartDelay,
              faultOptions.includes(FaultLog.Kind.CRASH_POINT) ? crashPoints : 0,
              !noDedup,
              retryShare,
              conflictShare,
              malformedShare,
              webhookDuplicates,
              quiescence,
              root.toAbsolutePath().normalize(),
              reports.toAbsolutePath());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return new ChaosRun(options, faultOptions, System.out).run() ? 0 : 1;
  }
}
