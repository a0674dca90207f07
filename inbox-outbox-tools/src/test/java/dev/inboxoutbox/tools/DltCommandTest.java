package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Parsing of {@code iox dlt}: refused before any broker is contacted. */
class DltCommandTest {

  @Test
  void aPositionThatIsNotPartitionAtOffsetIsAUsageError() {
    ToolRun run = ToolRun.of("dlt", "show", "orders.commands.DLT", "0-12");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("not a position: '0-12' (use PARTITION@OFFSET, e.g. 0@12)");
  }

  @Test
  void redriveWithoutAnySelectionIsRefused() {
    ToolRun run = ToolRun.of("dlt", "redrive", "orders.commands.DLT");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("choose what to re-drive");
  }

  @Test
  void anUnknownReasonIsAUsageErrorNamingTheValidOnes() {
    ToolRun run = ToolRun.of("dlt", "list", "orders.commands.DLT", "--reason", "BROKEN");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("HANDLER_ERROR");
  }

  @Test
  void ageIsShownInTheLargestUnitThatKeepsItReadable() {
    assertThat(DltCommand.age(Duration.ofSeconds(42))).isEqualTo("42s");
    assertThat(DltCommand.age(Duration.ofMinutes(7))).isEqualTo("7m");
    assertThat(DltCommand.age(Duration.ofHours(3))).isEqualTo("3h");
    assertThat(DltCommand.age(Duration.ofDays(2))).isEqualTo("2d");
  }
}
