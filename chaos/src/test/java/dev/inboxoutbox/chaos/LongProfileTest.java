package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LongProfileTest {

  @Test
  void theLongProfileSetsWhatTheCommandLineLeftOpen() {
    ChaosCommand command = parsed("--long", "--orders", "500");
    assertThat(command.orders).isEqualTo(500);
    assertThat(command.minKills).isEqualTo(LongProfile.MIN_KILLS);
    assertThat(command.postgresCrashEvery).isEqualTo(Duration.ofSeconds(30));
    assertThat(command.brokerKillEvery).isEqualTo(Duration.ofSeconds(30));
    assertThat(command.networkFaults).isEqualTo("latency,reset,blackhole");
  }

  @Test
  void withoutTheProfileTheDefaultsStay() {
    ChaosCommand command = new ChaosCommand();
    new CommandLine(command).parseArgs();
    assertThat(command.orders).isEqualTo(10_000);
    assertThat(command.minKills).isEqualTo(20);
  }

  private static ChaosCommand parsed(String... args) {
    ChaosCommand command = new ChaosCommand();
    CommandLine commandLine = new CommandLine(command);
    commandLine.parseArgs(args);
    new LongProfile(commandLine.getParseResult()).applyTo(command);
    return command;
  }
}
