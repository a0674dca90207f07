package example;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelaySettings;
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

  @Test
  void theRelayPublishesAnAppendedEvent() throws Exception {
    try (DevStack stack = DevStack.start();
        Database db = stack.postgres().createDatabase()) {
      DataSource dataSource = db.dataSource();
      InboxOutboxSchema.migrate(dataSource); // inbox, outbox, relay tables and publication

      OutboxRelay relay =
          new OutboxRelay(
                  RelaySettings.builder()
                      .jdbcUrl(db.jdbcUrl())
                      .user(db.username())
                      .password(db.password())
                      .kafkaBootstrapServers(stack.kafka().bootstrapServers())
                      .build())
              .start();
      try (Connection tx = dataSource.getConnection()) {
        tx.setAutoCommit(false);
        Outbox.builder().build().append(tx, OutboxEvent.of("order", "o-1", "OrderPlaced", "{}"));
        tx.commit();
      }

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
        consumer.subscribe(List.of("outbox.event.order"));
        await("the event on outbox.event.order")
            .atMost(Duration.ofSeconds(60))
            .until(() -> consumer.poll(Duration.ofMillis(200)).records("outbox.event.order"),
                records -> {
                  records.forEach(received::add);
                  return !received.isEmpty();
                });
      } finally {
        relay.close();
      }
      assertEquals("o-1", received.get(0).key());
      assertEquals(17, serverMajorVersion(dataSource), "the dev stack's PostgreSQL");
    }
  }

  static int serverMajorVersion(DataSource dataSource) throws Exception {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW server_version_num")) {
      row.next();
      return row.getInt(1) / 10000;
    }
  }
}
