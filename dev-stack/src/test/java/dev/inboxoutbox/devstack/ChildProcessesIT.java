package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChildProcessesIT {

  @Test
  void aTerminatedIoxJvmTakesItsChildProcessesWithIt() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process iox =
        new ProcessBuilder(
                java, "-cp", System.getProperty("java.class.path"), StartsAChild.class.getName())
            .redirectErrorStream(true)
            .start();
    ProcessHandle child = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(iox.getInputStream(), StandardCharsets.UTF_8))) {
      child = ProcessHandle.of(Long.parseLong(out.readLine().trim())).orElseThrow();
      assertThat(child.isAlive()).isTrue();

      iox.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the JVM runs its shutdown hooks
      assertThat(iox.waitFor(30, TimeUnit.SECONDS)).isTrue();
      ProcessHandle started = child;
      await("the child process gone")
          .atMost(Duration.ofSeconds(10))
          .until(() -> !started.isAlive());
    } finally {
      iox.destroyForcibly();
      if (child != null) {
        child.destroyForcibly();
      }
    }
  }

  /** Stands in for {@code iox chaos}: starts a long-lived child, prints its PID, waits. */
  static final class StartsAChild {
    public static void main(String[] args) throws Exception {
      ChildProcesses.stopOnExit();
      Process child = new ProcessBuilder("sleep", "600").start();
      System.out.println(child.pid());
      System.out.flush();
      Thread.sleep(600_000);
    }
  }
}
