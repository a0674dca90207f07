package dev.inboxoutbox.chaos;

import dev.inboxoutbox.cli.OperatorError;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.connect.BuiltConnector;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.devstack.connect.OutboxConnectorFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The services' outboxes relayed by one Kafka Connect worker running the outbox connector, one
 * connector per database, each configured from the checked-in {@code kafka-connect-outbox.json}:
 * what {@code iox up --relay connect} runs instead of the services' embedded relays.
 */
final class ConnectRelay implements AutoCloseable {

  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private final ConnectWorker worker;
  private final List<String> connectors = new ArrayList<>();

  private ConnectRelay(ConnectWorker worker) {
    this.worker = worker;
  }

  /**
   * Starts the worker from the build at {@code repoRoot} and a connector for each database, and
   * waits until every connector's task runs.
   *
   * @throws OperatorError when the repository is not built
   */
  static ConnectRelay start(
      Path repoRoot, String bootstrap, Database orders, Database payments, Path logs) {
    BuiltConnector built;
    try {
      built = BuiltConnector.in(repoRoot);
    } catch (BuiltConnector.NotBuilt e) {
      throw new OperatorError(
          "--relay connect: "
              + e.getMessage()
              + "; build the repository first (./mvnw -B -q install -DskipTests) and run from its"
              + " root, or name it with --repo");
    }
    Path directory = logs.resolveSibling("connect");
    ConnectRelay relay =
        new ConnectRelay(
            new ConnectWorker(
                "connect-worker",
                built.workerClassPathText(),
                built.workerSettings(bootstrap, "iox-up-connect", directory),
                Map.of(),
                directory));
    try {
      relay.worker.start();
      relay.relay(built, "order-consumer-outbox", orders);
      relay.relay(built, "payment-consumer-outbox", payments);
      relay.connectors.forEach(name -> relay.worker.rest().awaitRunning(name, PATIENCE));
      return relay;
    } catch (RuntimeException e) {
      relay.close();
      throw e;
    }
  }

  /** Where the worker answers, its connectors and its log, for the lines {@code iox up} prints. */
  String describe() {
    return "Kafka Connect worker "
        + worker.rest().baseUrl()
        + ", connectors "
        + String.join(", ", connectors)
        + " (log: "
        + worker.log()
        + ")";
  }

  private void relay(BuiltConnector built, String name, Database database) {
    Map<String, String> config =
        built.connector(
            OutboxConnectorFiles.environment(database, "iox_connect_" + database.name()));
    // The connector's name also names its heartbeat topic and its metrics.
    config.put("topic.prefix", name);
    worker.rest().putConnector(name, config);
    connectors.add(name);
  }

  @Override
  public void close() {
    worker.close();
  }
}
