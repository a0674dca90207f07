package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iox bench} from the packaged jar, as a user runs it: the tests' class path holds libraries
 * (Awaitility among them) that the jar may lack, so only the jar shows what a user gets.
 */
class IoxBenchIT {

  @Test
  void theRelayPartRunsFromThePackagedJarWithItsKafkaConnectArm(@TempDir Path directory)
      throws Exception {
    Path json = directory.resolve("bench.json");
    try (IoxProcess bench =
        IoxProcess.startPackaged(
            "bench",
            "--relay-only",
            "--relay-events",
            "200",
            "--relay-rate",
            "200",
            "--repeat",
            "1",
            "--json",
            json.toString())) {

      boolean ended = bench.waitFor(Duration.ofMinutes(6));
      assertThat(ended).as(() -> "the bench ended\n" + bench.stateWhenStuck()).isTrue();
      assertThat(bench.printed()).doesNotContain("NoClassDefFoundError", "ClassNotFoundException");
      assertThat(bench.exitValue()).as(bench.printed()).isZero();
      assertThat(Files.readString(json))
          .as("the worker drained a backlog beside the relay")
          .contains("Kafka Connect draining the same backlog");
    }
  }
}
