package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code iox up} refuses what it cannot run before it starts anything. */
class UpCommandTest {

  @Test
  void anOtlpEndpointWithoutAnHttpSchemeIsAUsageError() {
    Result result = up("--otlp-endpoint", "localhost:4318");

    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err)
        .contains("--otlp-endpoint takes an http:// or https:// URL")
        .contains("localhost:4318");
  }

  @Test
  void aRelayOtherThanEmbeddedOrConnectIsAUsageError() {
    Result result = up("--relay", "debezium-server");

    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("--relay is embedded or connect, not 'debezium-server'");
  }

  private record Result(int exitCode, String err) {}

  /** Bounded: a command that accepted the option would go on to start the dev stack. */
  private static Result up(String... args) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          StringWriter err = new StringWriter();
          CommandLine commandLine = new CommandLine(new UpCommand());
          commandLine.setErr(new PrintWriter(err, true));
          commandLine.setOut(new PrintWriter(new StringWriter(), true));
          return new Result(commandLine.execute(args), err.toString());
        });
  }
}
