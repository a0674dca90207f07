package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.cli.OperatorError;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class InboxUpgradeCommandTest {

  @Test
  void aDatabaseThatCannotBeReachedIsOneLineNamingItAndExitCode2() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + closedPort + "/nowhere";

    for (String step : new String[] {"prepare", "finish"}) {
      ToolRun run = ToolRun.of("inbox-upgrade", step, "--jdbc-url", url);

      assertThat(run.exitCode()).as(step).isEqualTo(OperatorError.EXIT_CODE);
      assertThat(run.err())
          .as(step)
          .startsWith("iox inbox-upgrade " + step + ": ")
          .contains(url)
          .contains("refused")
          .doesNotContain("\tat ");
      assertThat(run.err().lines()).as(step).hasSize(1);
    }
  }
}
