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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the consumer writes to the inbox per key, counted inside each batch's transaction. */
class ConsumerInboxWritesIT {

  private Database database;
  private String topic;
  private TopicWriter kafka;
  private IdempotentConsumer consumer;
  private final AtomicLong inboxInserts = new AtomicLong();
  private final AtomicLong inboxUpdates = new AtomicLong();

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    topic = "writes-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 1, Map.of());
    kafka = new TopicWriter();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (consumer != null) {
      consumer.close();
    }
    kafka.close();
    database.close();
  }

  @Test
  void aKeyWhoseOutcomeIsABareSuccessIsWrittenOnceAndAnotherOutcomeRewritesOnlyItsRow()
      throws Exception {
    for (int i = 0; i < 10; i++) {
      kafka.send(
          RecordBuilder.to(topic)
              .key("k")
              .idempotencyKey("key-" + i)
              .json(i == 3 ? "{\"qty\":0}" : "{\"qty\":1}"));
    }
    MessageHandler handler =
        (message, context) ->
            message.payload().path("qty").asInt() > 0
                ? Outcome.success()
                : Outcome.rejected("{\"reason\":\"quantity must be positive\"}");
    consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder("writes")
                    .transactions(
                        countingInboxWrites(
                            TransactionRunner.fromDataSource(database.dataSource())))
                    .handler(handler))
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    DevStack.shared().kafka().bootstrapServers(),
                    "group.id",
                    "group-" + topic))
            .topics(topic)
            .build()
            .start();

    await("all 10 records consumed")
        .atMost(Duration.ofSeconds(60))
        .until(() -> consumer.stats().snapshot().records() >= 10);

    assertThat(inboxInserts.get()).as("inbox rows inserted").isEqualTo(10);
    assertThat(inboxUpdates.get()).as("inbox rows updated: only the rejection").isEqualTo(1);
    assertThat(
            Rows.count(database.dataSource(), "SELECT count(*) FROM inbox WHERE status = 'FAILED'"))
        .isEqualTo(1);
    assertThat(
            Rows.count(
                database.dataSource(),
                "SELECT count(*) FROM inbox WHERE status = 'COMPLETED' AND outcome_kind = 'SUCCESS'"
                    + " AND outcome_body IS NULL"))
        .isEqualTo(9);
  }

  /**
   * Runs each batch through {@code delegate}, and adds up the inbox rows the batch's transaction
   * inserted and updated, read on its connection just before it commits.
   */
  private TransactionRunner countingInboxWrites(TransactionRunner delegate) {
    return new TransactionRunner() {
      @Override
      public <T> T inTransaction(Work<T> work) throws Exception {
        return delegate.inTransaction(
            connection -> {
              T result = work.run(connection);
              long[] writes = inboxWrites(connection);
              inboxInserts.addAndGet(writes[0]);
              inboxUpdates.addAndGet(writes[1]);
              return result;
            });
      }
    };
  }

  private static long[] inboxWrites(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                """
                SELECT pg_stat_get_xact_tuples_inserted('inbox'::regclass),
                       pg_stat_get_xact_tuples_updated('inbox'::regclass)
                """)) {
      row.next();
      return new long[] {row.getLong(1), row.getLong(2)};
    }
  }
}
