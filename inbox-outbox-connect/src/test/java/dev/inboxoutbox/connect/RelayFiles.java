package dev.inboxoutbox.connect;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.devstack.connect.OutboxConnectorFiles;
import dev.inboxoutbox.devstack.connect.PluginPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * The checked-in Kafka Connect files of docs/relay, as the tests run them: workers from {@code
 * connect-distributed.properties} with this machine's broker and plugin archive, connectors from
 * {@code kafka-connect-outbox.json}.
 */
final class RelayFiles {

  static final Path DOCS =
      Path.of(System.getProperty("basedir", ".")).resolve("../docs/relay").normalize();
  static final Path WORKER_PROPERTIES = DOCS.resolve("connect-distributed.properties");
  static final Path CONNECTOR_JSON = DOCS.resolve("kafka-connect-outbox.json");

  /** The name {@link #CONNECTOR_JSON} gives its connector. */
  static final String CONNECTOR = "iox-outbox";

  /** The build's plugin archive, unpacked once for every worker of the test run. */
  private static final Path PLUGIN_PATH =
      PluginPath.unpacked(
          Path.of(System.getProperty("iox.connect.plugin-archive")),
          Path.of(System.getProperty("basedir", "."), "target", "connect-plugins"));

  private RelayFiles() {}

  /**
   * A worker of {@code group} from the checked-in worker file: the dev stack's single broker
   * (replication factor 1), the build's plugin archive, topics of the group's own.
   */
  static ConnectWorker worker(
      String name, String group, Map<String, String> environment, Path directory) {
    Map<String, String> settings =
        OutboxConnectorFiles.workerSettings(
            WORKER_PROPERTIES, DevStack.shared().kafka().bootstrapServers(), group, PLUGIN_PATH);
    return new ConnectWorker(name, workerClassPath(), settings, environment, directory);
  }

  /**
   * A worker of a group of its own, its environment pointing the checked-in connector at {@code
   * database} through a slot of its own.
   */
  static ConnectWorker soleWorker(Database database) {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String group = "iox-connect-" + suffix;
    return worker(
        "worker-1", group, environment(database, "iox_connect_" + suffix), workerDirectory(group));
  }

  static Path workerDirectory(String group) {
    return Path.of(System.getProperty("basedir", "."), "target", "connect-workers", group);
  }

  /** The variables the checked-in connector reads from its worker's environment. */
  static Map<String, String> environment(Database database, String slot) {
    return OutboxConnectorFiles.environment(database, slot);
  }

  /** The checked-in connector configuration, {@code ${env:...}} left for the worker to resolve. */
  static Map<String, String> connector() {
    return OutboxConnectorFiles.connectorConfig(CONNECTOR_JSON);
  }

  /**
   * The checked-in connector configuration with its {@code ${env:...}} values written in, as for
   * one of several databases relayed by the same workers.
   */
  static Map<String, String> connector(Map<String, String> values) {
    return OutboxConnectorFiles.connectorConfig(CONNECTOR_JSON, values);
  }

  private static String workerClassPath() {
    try {
      return Files.readString(Path.of(System.getProperty("iox.connect.worker-classpath"))).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("run the integration tests through Maven (failsafe)", e);
    }
  }
}
