package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fault.FaultOptions;
import java.time.Duration;
import picocli.CommandLine;

/**
 * {@code --quick} and {@code --long}: settings for a purpose, each applied only where the option
 * was not given on the command line.
 */
enum RunProfile {
  /**
   * The shortest run with an infrastructure and a network fault: the in-JVM broker (so no broker
   * kill), one PostgreSQL crash and a network fault a minute instead of one every 15 s.
   */
  QUICK {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      if (absent(given, "--postgres-crash-every")) {
        command.postgresCrashEvery = Duration.ofSeconds(QUICK_POSTGRES_CRASH_EVERY_SECONDS);
      }
      if (absent(given, "--network-fault-every")) {
        command.networkFaultEvery = Duration.ofSeconds(QUICK_NETWORK_FAULT_EVERY_SECONDS);
      }
    }
  },

  /** At least a hundred faults of every kind, for the figures in docs/chaos-runs.md. */
  LONG {
    @Override
    void applyTo(ChaosCommand command, CommandLine.ParseResult given) {
      if (absent(given, "--orders")) {
        command.orders = LONG_ORDERS;
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

  static final int QUICK_POSTGRES_CRASH_EVERY_SECONDS = 90;
  static final int QUICK_NETWORK_FAULT_EVERY_SECONDS = 60;
  static final int LONG_ORDERS = 20_000;
  static final int LONG_MIN_KILLS = 100;
  static final int LONG_INFRASTRUCTURE_EVERY_SECONDS = 30;
  static final String LONG_KINDS = FaultOptions.DEFAULT_KINDS + ",postgres-failover";

  abstract void applyTo(ChaosCommand command, CommandLine.ParseResult given);

  private static boolean absent(CommandLine.ParseResult given, String option) {
    return !given.hasMatchedOption(option);
  }
}
