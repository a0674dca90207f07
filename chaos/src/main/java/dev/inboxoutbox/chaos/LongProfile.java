package dev.inboxoutbox.chaos;

import java.time.Duration;
import picocli.CommandLine;

/**
 * {@code --long}: a run with at least a hundred faults of every kind, for the figures in
 * docs/chaos.md. Each setting applies only where the option was not given on the command line.
 */
final class LongProfile {

  static final int ORDERS = 40_000;
  static final int MIN_KILLS = 100;
  static final int INFRASTRUCTURE_EVERY_SECONDS = 30;
  private static final String NETWORK_FAULTS = "latency,reset,blackhole";
  private static final Duration QUIESCENCE = Duration.ofMinutes(15);

  private final CommandLine.ParseResult given;

  LongProfile(CommandLine.ParseResult given) {
    this.given = given;
  }

  void applyTo(ChaosCommand command) {
    if (absent("--orders")) {
      command.orders = ORDERS;
    }
    if (absent("--min-kills")) {
      command.minKills = MIN_KILLS;
    }
    if (absent("--postgres-crash-every")) {
      command.postgresCrashEvery = Duration.ofSeconds(INFRASTRUCTURE_EVERY_SECONDS);
    }
    if (absent("--broker-kill-every")) {
      command.brokerKillEvery = Duration.ofSeconds(INFRASTRUCTURE_EVERY_SECONDS);
    }
    if (absent("--network-faults")) {
      command.networkFaults = NETWORK_FAULTS;
    }
    if (absent("--quiescence-timeout")) {
      command.quiescence = QUIESCENCE;
    }
  }

  private boolean absent(String option) {
    return !given.hasMatchedOption(option);
  }
}
