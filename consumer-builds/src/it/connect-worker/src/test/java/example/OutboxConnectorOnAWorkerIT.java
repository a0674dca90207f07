package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.devstack.connect.OutboxConnectorFiles;
import dev.inboxoutbox.devstack.connect.PluginPath;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The outbox connector's plugin archive on a Kafka Connect worker, started from the checked-in
 * worker file and posted the checked-in connector configuration: one outbox row reaches Kafka.
 */
class OutboxConnectorOnAWorkerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Path FILES = Path.of(System.getProperty("connect.files"));

  @Test
  void theWorkerRelaysAnAppendedEvent() throws Exception {
    DevStack stack = DevStack.shared();
    try (Database db = stack.postgres().createDatabase()) {
      assertEquals(
          "17",
          Rows.text(db.dataSource(), "SELECT split_part(current_setting('server_version'), '.', 1)")
              .orElseThrow(),
          "the dev stack's PostgreSQL major version");
      InboxOutboxSchema.migrate(db.dataSource());
      Path plugins =
          PluginPath.unpacked(
              Path.of(System.getProperty("connect.plugin-archive")), Path.of("target/plugins"));
      String classPath =
          Files.readString(Path.of(System.getProperty("connect.worker-classpath"))).strip();
      try (ConnectWorker worker =
          new ConnectWorker(
                  "worker-1",
                  classPath,
                  OutboxConnectorFiles.workerSettings(
                      FILES.resolve("connect-distributed.properties"),
                      stack.kafka().bootstrapServers(),
                      "sample-connect",
                      plugins),
                  OutboxConnectorFiles.environment(db, "sample_connect"),
                  Path.of("target/worker-1"))
              .start()) {
        worker
            .rest()
            .putConnector(
                "iox-outbox",
                OutboxConnectorFiles.connectorConfig(FILES.resolve("kafka-connect-outbox.json")));
        worker.rest().awaitRunning("iox-outbox", PATIENCE);

        try (Connection tx = db.dataSource().getConnection()) {
          tx.setAutoCommit(false);
          Outbox.builder()
              .build()
              .append(tx, OutboxEvent.of("shipment", "s-1", "ShipmentBooked", "{}"));
          tx.commit();
        }
        List<ConsumerRecord<String, byte[]>> received;
        try (TopicReader reader = new TopicReader("outbox.event.shipment")) {
          received = reader.readUntil(records -> !records.isEmpty(), PATIENCE);
        }
        assertEquals("s-1", received.get(0).key());
      }
    }
  }
}
