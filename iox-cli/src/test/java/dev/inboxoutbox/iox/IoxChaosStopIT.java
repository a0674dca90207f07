package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ctrl-C in the middle of {@code iox chaos}, as a person stops a run: everything the run started is
 * stopped in order, without errors on the console, and nothing it started outlives it.
 */
class IoxChaosStopIT {

  private static final Path REPO =
      Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "..")).toAbsolutePath().normalize();

  private final List<String> output = new CopyOnWriteArrayList<>();
  private Process chaos;

  @AfterEach
  void stop() throws InterruptedException {
    if (chaos != null) {
      chaos.descendants().forEach(ProcessHandle::destroyForcibly);
      chaos.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSignalInTheMiddleOfARunStopsEverythingItStartedCleanly() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Iox.class.getName()));
    command.addAll(
        List.of(
            "chaos",
            "--quick",
            "--orders=20000",
            "--rate=100",
            "--repo=" + REPO,
            "--reports=" + Files.createTempDirectory("iox-chaos-stop")));
    chaos = new ProcessBuilder(command).redirectErrorStream(true).start();
    Thread reader = new Thread(this::readOutput, "iox-chaos-output");
    reader.setDaemon(true);
    reader.start();
    await("the run under load")
        .atMost(Duration.ofMinutes(4))
        .until(() -> output.stream().anyMatch(line -> line.contains(" sent ")) || !chaos.isAlive());
    assertThat(chaos.isAlive()).as(String.join("\n", output)).isTrue();
    List<ProcessHandle> started = chaos.descendants().toList();
    assertThat(started).isNotEmpty();

    int linesBeforeStop = output.size();
    // SIGTERM through the handle: Process.destroy() would also close the pipe the stop is read
    // from.
    chaos.toHandle().destroy();
    assertThat(chaos.waitFor(90, TimeUnit.SECONDS)).as("iox chaos stopped on SIGTERM").isTrue();
    reader.join(Duration.ofSeconds(10).toMillis());

    assertThat(started).noneMatch(ProcessHandle::isAlive);
    List<String> stopping = output.subList(linesBeforeStop, output.size());
    assertThat(stopping)
        .as(String.join("\n", stopping))
        .anyMatch(line -> line.contains("stopped before the verdict"))
        .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
    assertThat(chaos.exitValue()).isEqualTo(130);
  }

  private void readOutput() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(chaos.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        output.add(line);
      }
    } catch (IOException ended) {
      // the process is gone
    }
  }
}
