package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.cli.OperatorError;
import dev.inboxoutbox.devstack.connect.BuiltConnector;
import dev.inboxoutbox.devstack.connect.OutboxConnectorFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectArmTest {

  /** The module's directory when Maven runs the tests. */
  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @Test
  void anUnbuiltRepositoryIsOneLineNamingWhatIsMissingAndTheOptionThatLeavesTheArmOut(
      @TempDir Path root) {
    assertThatThrownBy(() -> ConnectArm.sources(root))
        .isInstanceOf(OperatorError.class)
        .hasMessageContaining(root.resolve("inbox-outbox-connect").resolve("target").toString())
        .hasMessageContaining("--skip-connect")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void aBuiltRepositoryGivesThePluginArchiveTheWorkersClassPathAndTheCheckedInFiles(
      @TempDir Path root) throws IOException {
    Path target = Files.createDirectories(root.resolve("inbox-outbox-connect/target"));
    Path docs = Files.createDirectories(root.resolve("docs/relay"));
    Files.writeString(target.resolve("inbox-outbox-connect-1.2.3.jar"), "");
    Path archive = Files.writeString(target.resolve("inbox-outbox-connect-1.2.3-plugin.zip"), "");
    Files.writeString(target.resolve("connect-worker.classpath"), "a.jar");
    Files.writeString(docs.resolve("connect-distributed.properties"), "");

    assertThatThrownBy(() -> ConnectArm.sources(root))
        .isInstanceOf(OperatorError.class)
        .hasMessageContaining("kafka-connect-outbox.json");

    Files.writeString(docs.resolve("kafka-connect-outbox.json"), "{}");
    BuiltConnector sources = ConnectArm.sources(root);
    assertThat(sources.pluginArchive()).isEqualTo(archive);
    assertThat(sources.workerClassPath()).isEqualTo(target.resolve("connect-worker.classpath"));
  }

  @Test
  void theConnectorIsTheCheckedInOneWithItsEnvironmentLeftForTheWorker() {
    var config =
        OutboxConnectorFiles.connectorConfig(REPO.resolve("docs/relay/kafka-connect-outbox.json"));

    assertThat(config)
        .containsEntry("connector.class", "dev.inboxoutbox.connect.OutboxConnector")
        .containsEntry("slot.name", "${env:IOX_SLOT_NAME}")
        .containsKey("transforms.outbox.route.topic.replacement");
  }
}
