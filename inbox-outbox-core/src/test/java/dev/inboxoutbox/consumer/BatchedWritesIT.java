package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A handler that writes a whole batch's state in one statement from {@link
 * MessageHandler#beforeBatch} (docs/consumer.md, "Writing a batch's state in one statement"), and
 * whose {@code handle} writes nothing: exactly one effect per key, however often the records come
 * again.
 */
class BatchedWritesIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private Database database;
  private KafkaProducer<String, byte[]> deadLetters;
  private String topic;

  /** The keys of each multi-row insert, one entry per statement. */
  private final List<List<String>> statements = Collections.synchronizedList(new ArrayList<>());

  /** Every effect of the batch in one INSERT; a payload with "poison" fails the batch. */
  private final MessageHandler batched =
      new MessageHandler() {
        @Override
        public void beforeBatch(List<IncomingMessage> messages, Connection connection)
            throws Exception {
          List<String> keys =
              messages.stream().map(message -> message.idempotencyKey().value()).toList();
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO effects (key, amount) SELECT unnest(?::text[]), 1")) {
            insert.setArray(1, connection.createArrayOf("text", keys.toArray()));
            insert.executeUpdate();
          }
          statements.add(keys);
        }

        @Override
        public Outcome handle(IncomingMessage message, HandlerContext context) {
          // The state is written already; what is left is the outcome, decided the same way.
          if (message.payload().path("poison").asBoolean()) {
            throw new IllegalStateException("cannot apply " + message.idempotencyKey().value());
          }
          return Outcome.success();
        }
      };

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // No unique constraint on purpose: only the inbox may stop a second effect.
      statement.execute("CREATE TABLE effects (key text NOT NULL, amount int NOT NULL)");
    }
    topic = "batched-writes-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 3, Map.of());
    Topics.create(topic + ".DLT", 1, Map.of());
    deadLetters =
        BatchProcessor.newDeadLetterProducer(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
            "batched-writes-it");
  }

  @AfterEach
  void tearDown() {
    deadLetters.close();
    database.close();
  }

  @Test
  void oneStatementPerBatchWithOnlyTheNewKeysAndOneEffectPerKeyAcrossRedeliveries()
      throws Exception {
    BatchProcessor processor = processor();
    List<ConsumerRecord<String, byte[]>> first =
        List.of(record("k1", 0), record("k2", 1), record("k1", 2), record("k3", 3));

    processor.process(first);
    processor.process(first); // redelivered: every key is a duplicate, no statement
    processor.process(List.of(record("k3", 4), record("k4", 5), record("k5", 6)));

    assertThat(statements).containsExactly(List.of("k1", "k2", "k3"), List.of("k4", "k5"));
    assertThat(effectsPerKey()).isEqualTo("k1:1,k2:1,k3:1,k4:1,k5:1");
    ConsumerStats.Snapshot stats = processor.stats().snapshot();
    assertThat(stats.applied()).isEqualTo(5);
    assertThat(stats.duplicates()).isEqualTo(6);
  }

  @Test
  void aBatchThatFailsTakesItsStatementBackAndEachRecordAloneWritesItsOwn() throws Exception {
    BatchProcessor processor = processor();

    processor.process(List.of(record("a", 0), poison("b", 1), record("c", 2), record("a", 3)));

    assertThat(statements)
        .as("the batch's statement rolled back, then one per record alone; b's rolled back too")
        .containsExactly(List.of("a", "b", "c"), List.of("a"), List.of("b"), List.of("c"));
    assertThat(effectsPerKey()).isEqualTo("a:1,c:1");
    assertThat(processor.stats().snapshot().deadLetters())
        .containsEntry(DeadLetterReason.HANDLER_ERROR, 1L);
  }

  @Test
  void aCrashAfterTheCommitReplaysTheBatchAndTheInboxAbsorbsIt() throws Exception {
    try (TopicWriter kafka = new TopicWriter()) {
      for (int i = 0; i < 60; i++) {
        kafka.send(RecordBuilder.to(topic).key("c-" + (i % 6)).idempotencyKey("k-" + i).json("{}"));
      }
      for (int i = 0; i < 20; i++) {
        // client retries of the first keys
        kafka.send(RecordBuilder.to(topic).key("c-" + (i % 6)).idempotencyKey("k-" + i).json("{}"));
      }
    }
    AtomicInteger crashedBatch = new AtomicInteger();
    BatchProcessor.Hooks crashOnce =
        new BatchProcessor.Hooks() {
          @Override
          public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
            if (crashedBatch.compareAndSet(0, records.size())) {
              throw new IllegalStateException("injected crash after the database commit");
            }
          }
        };
    long doneBeforeTheCrash;
    try (IdempotentConsumer first = consumer(crashOnce)) {
      first.start();
      // The injected crash ends the consumer's thread with an uncaught exception, on purpose.
      await("first consumer crashed")
          .dontCatchUncaughtExceptions()
          .atMost(PATIENCE)
          .until(() -> crashedBatch.get() > 0);
      doneBeforeTheCrash = first.stats().snapshot().records() - crashedBatch.get();
    }
    try (IdempotentConsumer second = consumer(BatchProcessor.Hooks.NONE)) {
      second.start();
      await("the crashed batch replayed and every other record consumed")
          .dontCatchUncaughtExceptions()
          .atMost(PATIENCE)
          .until(() -> doneBeforeTheCrash + second.stats().snapshot().records() >= 80);
      assertThat(second.stats().snapshot().duplicates())
          .as("the crashed batch's records came again and were absorbed")
          .isGreaterThanOrEqualTo(crashedBatch.get());
    }

    assertThat(count("SELECT count(*) FROM effects")).isEqualTo(60);
    assertThat(count("SELECT count(DISTINCT key) FROM effects")).isEqualTo(60);
    assertThat(statements.stream().mapToInt(List::size).sum())
        .as("each key written by exactly one statement")
        .isEqualTo(60);
  }

  private BatchProcessor processor() {
    return BatchProcessor.builder("batched-writes")
        .dataSource(database.dataSource())
        .handler(batched)
        .deadLetterProducer(deadLetters)
        .build();
  }

  private IdempotentConsumer consumer(BatchProcessor.Hooks hooks) {
    return IdempotentConsumer.builder(
            BatchProcessor.builder("batched-writes")
                .dataSource(database.dataSource())
                .handler(batched)
                .hooks(hooks))
        .kafka(
            Map.of(
                "bootstrap.servers",
                DevStack.shared().kafka().bootstrapServers(),
                "group.id",
                "group-" + topic,
                "max.poll.records",
                "25"))
        .topics(topic)
        .build();
  }

  private ConsumerRecord<String, byte[]> record(String key, long offset) {
    return RecordBuilder.to(topic).key(key).idempotencyKey(key).json("{}").consumed(0, offset);
  }

  private ConsumerRecord<String, byte[]> poison(String key, long offset) {
    return RecordBuilder.to(topic)
        .key(key)
        .idempotencyKey(key)
        .json("{\"poison\":true}")
        .consumed(0, offset);
  }

  private String effectsPerKey() {
    return Rows.text(
            database.dataSource(),
            "SELECT string_agg(key || ':' || n, ',' ORDER BY key)"
                + " FROM (SELECT key, count(*) AS n FROM effects GROUP BY key) per_key")
        .orElse("");
  }

  private long count(String sql) {
    return Rows.count(database.dataSource(), sql);
  }
}
