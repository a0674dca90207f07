package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.report.TimelinePoint;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressLineTest {

  private final ByteArrayOutputStream written = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(written, true, StandardCharsets.UTF_8);

  @Test
  void withoutATerminalItWritesWholeLinesNowAndThen() {
    ProgressLine line = new ProgressLine(out, false, Duration.ofSeconds(10));

    for (long at = 0; at <= 25_000; at += 1_000) {
      line.show(at, "[" + at / 1000 + "s] sent " + at);
    }
    line.end();

    assertThat(written.toString(StandardCharsets.UTF_8))
        .doesNotContain("\r")
        .isEqualTo("[0s] sent 0\n[10s] sent 10000\n[20s] sent 20000\n");
  }

  @Test
  void onATerminalItRewritesOneLineAndEndsIt() {
    ProgressLine line = new ProgressLine(out, true, Duration.ofSeconds(10));

    line.show(0, "[0s] sent 0");
    line.show(1_000, "[1s] sent 10");
    line.end();
    line.end();

    assertThat(written.toString(StandardCharsets.UTF_8))
        .isEqualTo("\r[0s] sent 0   \r[1s] sent 10   \n");
  }

  @Test
  void onATerminalAShorterLineCoversTheLongerOneBeforeIt() {
    ProgressLine line = new ProgressLine(out, true, Duration.ofSeconds(10));

    line.show(0, "x".repeat(40));
    line.show(1_000, "y".repeat(10));
    line.end();

    assertThat(written.toString(StandardCharsets.UTF_8))
        .endsWith("\r" + "y".repeat(10) + " ".repeat(33) + "\n");
  }

  @Test
  void aSampleReadFromTheDatabaseShowsItsCounts() {
    assertThat(
            ProgressLine.describe(
                List.of(
                    new TimelinePoint(0, 0, 0L, 0L, 0, 0),
                    new TimelinePoint(1_000, 150, 140L, 120L, 3, 0))))
        .isEqualTo("[  1.0s] sent 150  orders 140  settled 120  duplicates absorbed 3  kills 0");
  }

  /** PostgreSQL down: the last counts read, marked, instead of -1 or 0. */
  @Test
  void whileTheDatabaseCannotBeReadTheLastKnownCountsShowMarkedStale() {
    List<TimelinePoint> samples =
        List.of(
            new TimelinePoint(1_000, 150, 140L, 120L, 3, 0),
            new TimelinePoint(2_000, 300, 1234L, 1200L, 5, 1),
            new TimelinePoint(3_000, 450, null, null, 7, 1),
            new TimelinePoint(4_000, 600, null, null, 9, 2));

    assertThat(ProgressLine.describe(samples))
        .isEqualTo(
            "[  4.0s] sent 600  orders 1234?  settled 1200?  duplicates absorbed 9  kills 2"
                + "  (orders database unreachable: last counts read)");
  }

  @Test
  void beforeAnyCountWasReadAnUnknownCountIsAQuestionMark() {
    assertThat(ProgressLine.describe(List.of(new TimelinePoint(1_000, 150, null, null, 0, 0))))
        .isEqualTo(
            "[  1.0s] sent 150  orders ?  settled ?  duplicates absorbed 0  kills 0"
                + "  (orders database unreachable: no count read yet)");
  }
}
