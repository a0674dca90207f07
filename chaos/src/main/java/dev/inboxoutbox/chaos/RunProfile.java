package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.time.Duration;
import picocli.CommandLine;

/**
 * {@code --quick}, {@code --no-faults}, {@code --inbox-price} and {@code --long}: settings for a
 * purpose, each applied only where the option was not given on the command line.
 */
enum RunProfile {
  /**
   * The shortest run with an infrastructure and a network fault, a smoke run that claims no proof
   * floor: a one-minute window, the in-JVM broker (so no broker kill), one PostgreSQL crash and a
   * network fault a minute.
   */
  QUICK {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      if (absent(given, "--duration")) {
        command.window = Duration.ofSeconds(QUICK_WINDOW_SECONDS);
      }
      if (absent(given, "--postgres-crash-every")) {
        command.postgresCrashEvery = Duration.ofSeconds(QUICK_POSTGRES_CRASH_EVERY_SECONDS);
      }
      if (absent(given, "--network-fault-every")) {
        command.networkFaultEvery = Duration.ofSeconds(QUICK_NETWORK_FAULT_EVERY_SECONDS);
      }
      twoInstancesEach(command, given);
    }
  },

  /**
   * No fault of any kind, for measuring the pipeline: no kill, no crash point, no infrastructure or
   * network fault, on the run's 3-broker cluster unless {@code --kafka-brokers 1}. It claims no
   * proof floor; the options that choose faults are refused with it.
   */
  FAULT_FREE {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      command.faults = "";
      command.networkFaults = "none";
      if (absent(given, "--kafka-brokers")) {
        command.kafkaBrokers = KafkaCluster.BROKERS;
      }
      twoInstancesEach(command, given);
    }
  },

  /**
   * The runs of {@code --inbox-price}: {@link #FAULT_FREE}, a window of {@value
   * #INBOX_PRICE_WINDOW_SECONDS} s with a ceiling of {@value #INBOX_PRICE_RATE} orders/s that the
   * pipeline does not reach on two cores, and a load without repeats (no client retry, no reused
   * key, no duplicate webhook): the baseline without inboxes would apply them again, and both arms
   * must do the same work. No cancels either: a held cancel waits until its order is charged or
   * refused, and without the inbox a refusal leaves no trace to see, so the baseline's cancels
   * would wait out their patience after every refused order.
   */
  INBOX_PRICE {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      FAULT_FREE.applyTo(command, given);
      if (absent(given, "--duration")) {
        command.window = Duration.ofSeconds(INBOX_PRICE_WINDOW_SECONDS);
      }
      if (absent(given, "--rate")) {
        command.rate = INBOX_PRICE_RATE;
      }
      command.shares.retryShare = 0;
      command.shares.conflictShare = 0;
      command.shares.cancelShare = 0;
      command.webhookDuplicates = 0;
    }
  },

  /** A ten-minute window with every fault kind, for the figures in docs/chaos-runs.md. */
  LONG {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      if (absent(given, "--duration")) {
        command.window = Duration.ofSeconds(LONG_WINDOW_SECONDS);
      }
      if (absent(given, "--min-kills")) {
        command.minKills = LONG_MIN_KILLS;
      }
      if (absent(given, "--postgres-crash-every")) {
        command.postgresCrashEvery = Duration.ofSeconds(LONG_INFRASTRUCTURE_EVERY_SECONDS);
      }
      if (absent(given, "--broker-kill-every")) {
        command.brokerKillEvery = Duration.ofSeconds(LONG_INFRASTRUCTURE_EVERY_SECONDS);
      }
      if (absent(given, "--faults")) {
        command.faults = LONG_KINDS;
      }
      if (absent(given, "--postgres-failover-every")) {
        command.postgresFailoverEvery = Duration.ofSeconds(LONG_INFRASTRUCTURE_EVERY_SECONDS);
      }
      if (absent(given, "--network-faults")) {
        command.networkFaults = "latency,reset,blackhole";
      }
      if (absent(given, "--quiescence-timeout")) {
        command.quiescence = Duration.ofMinutes(15);
      }
    }
  };

  /**
   * What repeats a key, which the baseline of {@code --inbox-price} cannot absorb, and the cancels
   * it cannot hold (see {@link #INBOX_PRICE}).
   */
  static final java.util.List<String> INBOX_PRICE_ZERO_SHARES =
      java.util.List.of(
          "--retry-share", "--conflict-share", "--webhook-duplicate-share", "--cancel-share");

  static final int INBOX_PRICE_WINDOW_SECONDS = 60;
  static final int INBOX_PRICE_RATE = 300;

  /** What chooses faults, which a run without faults refuses. */
  static final java.util.List<String> FAULT_OPTIONS =
      java.util.List.of(
          "--faults", "--network-faults", "--unsafe-failover", "--crash-point-probability");

  static final int QUICK_WINDOW_SECONDS = 60;
  static final int QUICK_POSTGRES_CRASH_EVERY_SECONDS = 90;
  static final int QUICK_NETWORK_FAULT_EVERY_SECONDS = 60;
  static final int LONG_WINDOW_SECONDS = 600;

  /**
   * Infrastructure faults come one at a time, each kind's interval counted from the end of its last
   * fault; a PostgreSQL crash lasts about 7 s and a broker kill about 11 s on two cores (until its
   * restart listens). Each kind due every quarter of the window fits three of each, one more than
   * its floor: more would spend the window's CPU and orders on outages no floor asks for.
   */
  private static final int INFRASTRUCTURE_FAULTS_PER_WINDOW = 4;

  /** The least time between the end of one network fault and the start of the next. */
  private static final Duration NETWORK_FAULT_GAP = Duration.ofSeconds(2);

  static final int LONG_MIN_KILLS = 100;
  static final int LONG_INFRASTRUCTURE_EVERY_SECONDS = 30;
  static final String LONG_KINDS = FaultOptions.DEFAULT_KINDS + ",postgres-failover";

  abstract void applyTo(ChaosCommand command, CommandLine.ParseResult given);

  /**
   * Without a profile, a time-boxed run spreads its infrastructure and network faults over its
   * window, so that each kind reaches its proof floor with a margin whatever the window: a
   * PostgreSQL crash and a broker kill every quarter of it, a failover every half and a network
   * fault every tenth (at least 2 s more than one lasts). Options given explicitly win.
   */
  static void fitFaultsToWindow(ChaosCommand command, CommandLine.ParseResult given) {
    Duration window = command.window;
    if (absent(given, "--postgres-crash-every")) {
      command.postgresCrashEvery = window.dividedBy(INFRASTRUCTURE_FAULTS_PER_WINDOW);
    }
    if (absent(given, "--broker-kill-every")) {
      command.brokerKillEvery = window.dividedBy(INFRASTRUCTURE_FAULTS_PER_WINDOW);
    }
    if (absent(given, "--postgres-failover-every")) {
      command.postgresFailoverEvery = window.dividedBy(2);
    }
    if (absent(given, "--network-fault-every")) {
      // A short window must not space faults closer than one lasts, or they would overlap.
      Duration tenth = window.dividedBy(10);
      Duration apart = command.networkFaultDuration.plus(NETWORK_FAULT_GAP);
      command.networkFaultEvery = tenth.compareTo(apart) >= 0 ? tenth : apart;
    }
  }

  /**
   * Two processes per service where no process-fault floor is claimed. The default three give the
   * kill loop a victim while one instance restarts and another must keep serving: with two, the
   * kills waited for restarts and runs ended at 17 or 18 of the floor's 20 process faults.
   */
  private static void twoInstancesEach(ChaosCommand command, CommandLine.ParseResult given) {
    if (absent(given, "--order-instances")) {
      command.orderInstances = 2;
    }
    if (absent(given, "--payment-instances")) {
      command.paymentInstances = 2;
    }
  }

  private static boolean absent(CommandLine.ParseResult given, String option) {
    return !given.hasMatchedOption(option);
  }
}
