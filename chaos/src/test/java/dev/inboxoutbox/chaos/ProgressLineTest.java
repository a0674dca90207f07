package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
}
