package dev.inboxoutbox.chaos.fault;

import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which faults a chaos run injects ({@code --faults}) and how often the infrastructure ones come: a
 * PostgreSQL crash every {@code postgresCrashEvery}, down for {@code postgresDown}; a failover of
 * the primary to its standby every {@code postgresFailoverEvery}; a broker SIGKILL every {@code
 * brokerKillEvery}, down for {@code brokerDown}. {@code unsafeFailover} is a negative control: the
 * standby stays asynchronous and replication is held back before each failover, so commits the
 * services saw acknowledged are missing on the promoted standby and the verifier must fail. Process
 * kills and crash points keep their own rates in {@link ChaosOptions}. {@code kafkaBrokers} is 3 (a
 * cluster of broker processes) or 1 (the in-JVM broker, which cannot be killed).
 */
public record FaultOptions(
    Set<FaultLog.Kind> kinds,
    int kafkaBrokers,
    Duration postgresCrashEvery,
    Duration postgresDown,
    Duration postgresFailoverEvery,
    Duration brokerKillEvery,
    Duration brokerDown,
    boolean unsafeFailover) {

  /**
   * The default run's faults ({@code --quick} drops broker-kill). postgres-failover comes with
   * {@code --long} or when chosen: it runs PostgreSQL as a pair with a synchronous standby, whose
   * commits cost a round trip more and whose failovers wait for the relays' slots.
   */
  public static final String DEFAULT_KINDS = "process-kill,crash-point,postgres-crash,broker-kill";

  /** Time from the end of one failover to the next unless {@code --postgres-failover-every}. */
  static final Duration DEFAULT_POSTGRES_FAILOVER_EVERY = Duration.ofSeconds(60);

  /** The kinds {@code --faults} chooses; network faults have {@code --network-faults}. */
  private static final Set<FaultLog.Kind> CHOSEN_HERE =
      EnumSet.of(
          FaultLog.Kind.PROCESS_KILL,
          FaultLog.Kind.CRASH_POINT,
          FaultLog.Kind.POSTGRES_CRASH,
          FaultLog.Kind.POSTGRES_FAILOVER,
          FaultLog.Kind.BROKER_KILL);

  public FaultOptions {
    kinds = kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
    if (kafkaBrokers != 1 && kafkaBrokers != KafkaCluster.BROKERS) {
      throw new IllegalArgumentException(
          "kafka-brokers must be 1 (in-JVM) or 3 (a cluster of processes), was " + kafkaBrokers);
    }
    if (kinds.contains(FaultLog.Kind.BROKER_KILL) && kafkaBrokers == 1) {
      throw new IllegalArgumentException(
          "broker-kill needs --kafka-brokers 3: the single in-JVM broker cannot be killed");
    }
    requirePositive(postgresCrashEvery, "postgres-crash-every");
    requirePositive(postgresDown, "postgres-down");
    requirePositive(postgresFailoverEvery, "postgres-failover-every");
    requirePositive(brokerKillEvery, "broker-kill-every");
    requirePositive(brokerDown, "broker-down");
    if (unsafeFailover && !kinds.contains(FaultLog.Kind.POSTGRES_FAILOVER)) {
      throw new IllegalArgumentException(
          "--unsafe-failover is a negative control of postgres-failover: add it to --faults");
    }
  }

  /** Today's run before the fault menu: process kills and crash points, one in-JVM broker. */
  public static FaultOptions processesOnly() {
    return inJvmBrokerWith(parseKinds("process-kill,crash-point"));
  }

  /** No fault of any kind: the pipeline alone, or a negative control that needs none. */
  public static FaultOptions none() {
    return inJvmBrokerWith(Set.of());
  }

  private static FaultOptions inJvmBrokerWith(Set<FaultLog.Kind> kinds) {
    return new FaultOptions(
        kinds,
        1,
        Duration.ofSeconds(40),
        Duration.ofSeconds(5),
        DEFAULT_POSTGRES_FAILOVER_EVERY,
        Duration.ofSeconds(30),
        Duration.ofSeconds(5),
        false);
  }

  public boolean includes(FaultLog.Kind kind) {
    return kinds.contains(kind);
  }

  /** {@code process-kill,postgres-crash,...}: the kinds' names in lower case with dashes. */
  public static Set<FaultLog.Kind> parseKinds(String list) {
    return Arrays.stream(list.split(","))
        .map(String::trim)
        .filter(name -> !name.isEmpty())
        .map(FaultOptions::parseKind)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(FaultLog.Kind.class)));
  }

  public static String nameOf(FaultLog.Kind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static FaultLog.Kind parseKind(String name) {
    String known = CHOSEN_HERE.stream().map(FaultOptions::nameOf).collect(Collectors.joining(", "));
    FaultLog.Kind kind;
    try {
      kind = FaultLog.Kind.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown fault '" + name + "'; known: " + known, e);
    }
    if (!CHOSEN_HERE.contains(kind)) {
      throw new IllegalArgumentException(
          "'"
              + name
              + "' is a network fault: choose it with --network-faults; --faults knows "
              + known);
    }
    return kind;
  }

  private static void requirePositive(Duration duration, String name) {
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + duration);
    }
  }
}
