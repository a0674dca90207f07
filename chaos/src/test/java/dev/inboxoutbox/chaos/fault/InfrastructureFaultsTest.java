package dev.inboxoutbox.chaos.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InfrastructureFaultsTest {

  private static final Instant WINDOW_ENDS = Instant.parse("2026-11-29T12:02:00Z");

  /**
   * A broker kill 15 s before a time-boxed window closes would keep the run waiting for the broker
   * past it; a PostgreSQL crash then still ends in time.
   */
  @Test
  void noFaultStartsThatWouldOutlastTheWindow() {
    try (InfrastructureFaults faults = faults()) {
      Instant late = WINDOW_ENDS.minusSeconds(15);
      assertThat(faults.endsBefore(Kind.BROKER_KILL, late, WINDOW_ENDS)).isFalse();
      assertThat(faults.endsBefore(Kind.BROKER_KILL, WINDOW_ENDS.minusSeconds(18), WINDOW_ENDS))
          .isTrue();
      assertThat(faults.endsBefore(Kind.POSTGRES_CRASH, late, WINDOW_ENDS)).isTrue();
      assertThat(faults.endsBefore(Kind.POSTGRES_CRASH, WINDOW_ENDS.minusSeconds(7), WINDOW_ENDS))
          .isFalse();
      assertThat(faults.endsBefore(Kind.BROKER_KILL, late, Instant.MAX))
          .as("a run of a fixed number of orders has no window")
          .isTrue();
    }
  }

  private static InfrastructureFaults faults() {
    FaultOptions options =
        new FaultOptions(
            Set.of(),
            1,
            Duration.ofSeconds(20),
            Duration.ofSeconds(5),
            Duration.ofSeconds(60),
            Duration.ofSeconds(20),
            Duration.ofSeconds(5),
            false);
    return new InfrastructureFaults(
        options,
        new FaultLog(WINDOW_ENDS.minusSeconds(120)),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        () -> 0,
        new Random(1),
        new PrintStream(OutputStream.nullOutputStream()));
  }
}
