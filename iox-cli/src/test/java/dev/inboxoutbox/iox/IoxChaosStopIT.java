package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ctrl-C in the middle of {@code iox chaos}, as a person stops a run: everything the run started is
 * stopped in order, without errors on the console, and nothing it started outlives it.
 */
class IoxChaosStopIT {

  @Test
  void aSignalInTheMiddleOfARunStopsEverythingItStartedCleanly() throws Exception {
    try (IoxProcess chaos = quickRunOfManyOrders()) {
      await("the run under load")
          .atMost(Duration.ofMinutes(4))
          .until(
              () ->
                  chaos.output().stream().anyMatch(line -> line.contains(" sent "))
                      || !chaos.isAlive());
      assertThat(chaos.isAlive()).as(chaos.printed()).isTrue();
      List<ProcessHandle> started = chaos.descendants();
      assertThat(started).isNotEmpty();

      List<String> stopping = chaos.terminate(Duration.ofSeconds(90));

      assertThat(stopping).as("iox chaos stopped on SIGTERM").isNotNull();
      assertThat(started).noneMatch(ProcessHandle::isAlive);
      assertThat(stopping)
          .as(String.join("\n", stopping))
          .anyMatch(line -> line.contains("stopped before the verdict"))
          .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
      assertThat(chaos.exitValue()).isEqualTo(130);
    }
  }

  /**
   * A stop while the stack starts: the in-JVM broker's start swallows the interrupt and retries, so
   * the run must ask for the stop itself once the start returns instead of running on.
   */
  @Test
  void aSignalWhileTheStackStartsStopsTheRunBeforeItsLoad() throws Exception {
    try (IoxProcess chaos = quickRunOfManyOrders()) {
      await("the stack starting")
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  chaos.output().stream().anyMatch(line -> line.startsWith("faults: "))
                      || !chaos.isAlive());
      assertThat(chaos.isAlive()).as(chaos.printed()).isTrue();

      List<String> stopping = chaos.terminate(Duration.ofSeconds(60));

      assertThat(stopping).as("iox chaos stopped on SIGTERM").isNotNull();
      assertThat(stopping)
          .as(String.join("\n", stopping))
          .anyMatch(line -> line.contains("stopped before the verdict"))
          .noneMatch(line -> line.contains(" sent "));
      assertThat(chaos.exitValue()).isEqualTo(130);
    }
  }

  /** A quick run with more orders than it sends before the signal. */
  private static IoxProcess quickRunOfManyOrders() throws IOException {
    return IoxProcess.start(
        "chaos",
        "--quick",
        "--orders=20000",
        "--rate=100",
        "--repo=" + Repository.ROOT,
        "--reports=" + Files.createTempDirectory("iox-chaos-stop"));
  }
}
