package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.Topics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link MessageHandler#beforeBatch}: when it runs, with which messages, and what it may break. */
class BeforeBatchIT {

  private Database database;
  private KafkaProducer<String, byte[]> deadLetters;
  private String topic;
  private final List<String> calls = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE locked_ahead (key text NOT NULL)");
    }
    topic = "before-batch-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 1, Map.of());
    Topics.create(topic + ".DLT", 1, Map.of());
    deadLetters =
        BatchProcessor.newDeadLetterProducer(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
            "before-batch-it");
  }

  @AfterEach
  void tearDown() {
    deadLetters.close();
    database.close();
  }

  @Test
  void runsOnceBeforeTheFirstHandlerWithTheMessagesToApplyInOrder() throws Exception {
    BatchProcessor processor = processor();
    processor.process(List.of(record("a", "{}", 0), record("b", "{}", 1)));
    calls.clear();

    processor.process(
        List.of(
            record("a", "{}", 2),
            record("c", "{}", 3),
            record("b", "{\"other\":true}", 4),
            record("d", "{}", 5)));

    assertThat(calls).containsExactly("before [c, d]", "handle c", "handle d");
    assertThat(lockedAhead()).isEqualTo("a,b,c,d");
  }

  @Test
  void whatItWritesRollsBackWithTheBatchAndItsPoisonIsTheRecordsDeadLetter() throws Exception {
    BatchProcessor processor = processor();

    processor.process(List.of(record("e", "{}", 0), record("f", "{\"poison\":true}", 1)));

    assertThat(calls)
        .containsExactly("before [e, f]", "before [e]", "handle e", "before [f]")
        .as("the batch failed in beforeBatch, then each record went alone");
    assertThat(lockedAhead()).isEqualTo("e");
    assertThat(processor.stats().snapshot().deadLetters())
        .containsEntry(DeadLetterReason.MALFORMED_PAYLOAD, 1L);
  }

  private BatchProcessor processor() {
    MessageHandler handler =
        new MessageHandler() {
          @Override
          public Outcome handle(IncomingMessage message, HandlerContext context) {
            calls.add("handle " + message.idempotencyKey().value());
            return Outcome.success();
          }

          @Override
          public void beforeBatch(List<IncomingMessage> messages, Connection connection)
              throws Exception {
            List<String> keys =
                messages.stream().map(message -> message.idempotencyKey().value()).toList();
            calls.add("before " + keys);
            for (IncomingMessage message : messages) {
              if (message.payload().path("poison").asBoolean()) {
                throw PoisonMessageException.malformed("poison in " + message.idempotencyKey());
              }
            }
            try (PreparedStatement insert =
                connection.prepareStatement(
                    "INSERT INTO locked_ahead (key) SELECT unnest(?::text[])")) {
              insert.setArray(1, connection.createArrayOf("text", keys.toArray()));
              insert.executeUpdate();
            }
          }
        };
    return BatchProcessor.builder("before-batch")
        .dataSource(database.dataSource())
        .handler(handler)
        .deadLetterProducer(deadLetters)
        .build();
  }

  private ConsumerRecord<String, byte[]> record(String key, String json, long offset) {
    return RecordBuilder.to(topic).key(key).idempotencyKey(key).json(json).consumed(0, offset);
  }

  private String lockedAhead() {
    return Rows.text(
            database.dataSource(), "SELECT string_agg(key, ',' ORDER BY key) FROM locked_ahead")
        .orElse("");
  }
}
