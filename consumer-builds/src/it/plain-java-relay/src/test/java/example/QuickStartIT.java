package example;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelaySettings;
import dev.inboxoutbox.relay.RelayState;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** README's plain-Java quick start on the dev stack: one outbox event reaches Kafka. */
class QuickStartIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @Test
  void theRelayPublishesAnAppendedEvent() throws Exception {
    try (DevStack stack = DevStack.start();
        Database db = stack.postgres().createDatabase()) {
      assertEquals(17, serverMajorVersion(db.dataSource()), "the dev stack's PostgreSQL");
      DataSource dataSource = db.dataSource();
      InboxOutboxSchema.migrate(dataSource); // inbox, outbox, relay tables and publication

      // Relay (module inbox-outbox-relay-debezium): streams outbox inserts to Kafka
      // (one leader per database, the others stand by).
      try (OutboxRelay relay =
          OutboxRelay.builder(
                  RelaySettings.builder()
                      .jdbcUrl(db.jdbcUrl())
                      .user(db.username())
                      .password(db.password())
                      .kafkaBootstrapServers(stack.kafka().bootstrapServers())
                      .build())
              .build()
              .start()) {
        // Rows written before the relay's slot exists are not relayed: wait until it streams.
        await("the relay streaming").atMost(PATIENCE).until(() -> relay.state() == RelayState.RUNNING);
        try (Connection tx = dataSource.getConnection()) {
          tx.setAutoCommit(false);
          Outbox.builder().build().append(tx, OutboxEvent.of("order", "o-1", "OrderPlaced", "{}"));
          tx.commit();
        }
        assertEquals("o-1", firstRecord(stack, "outbox.event.order").key());
      }
    }
  }

  private static ConsumerRecord<String, String> firstRecord(DevStack stack, String topic) {
    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers", stack.kafka().bootstrapServers(),
                "group.id", "quick-start",
                "auto.offset.reset", "earliest",
                "metadata.max.age.ms", "500"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await("a record on " + topic)
          .atMost(PATIENCE)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).records(topic).forEach(received::add);
                return !received.isEmpty();
              });
    }
    return received.get(0);
  }

  private static int serverMajorVersion(DataSource dataSource) throws Exception {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW server_version_num")) {
      row.next();
      return row.getInt(1) / 10000;
    }
  }
}
