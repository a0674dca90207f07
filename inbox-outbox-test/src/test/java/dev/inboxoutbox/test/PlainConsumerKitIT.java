package dev.inboxoutbox.test;

import static dev.inboxoutbox.test.ExactlyOnceAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kit against plain-Java consumers on the dev stack: a handler that writes through the batch's
 * connection passes every scenario; handlers that break the guarantee are caught.
 */
class PlainConsumerKitIT {

  private static Database database;

  /** Writes the order in the batch's transaction: exactly once. */
  private static final MessageHandler TRANSACTIONAL =
      (message, context) -> {
        insertOrder(context.connection(), orderKey(message));
        return Outcome.success();
      };

  /**
   * Writes the order on a connection of its own, in autocommit: the write is not undone when the
   * batch's transaction rolls back, as a call to another system would not be.
   */
  private static final MessageHandler OWN_CONNECTION =
      (message, context) -> {
        try (Connection own = database.dataSource().getConnection()) {
          insertOrder(own, orderKey(message));
        }
        return Outcome.success();
      };

  @BeforeAll
  static void createDatabase() throws SQLException {
    database = DevStack.shared().postgres().createDatabase();
    InboxOutboxSchema.migrate(database.dataSource());
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // No unique constraint on purpose: only the inbox may stop a second effect.
      statement.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)");
    }
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aHandlerWritingInTheBatchTransactionPassesEveryScenario() {
    try (ExactlyOnceKit kit = kit(TRANSACTIONAL, ConsumerSettings.builder("kit-plain-ok"))) {
      assertThat(kit).isExactlyOnce();
    }
  }

  @Test
  void aWriteOnAConnectionOfItsOwnIsCaughtByTheFailureAfterTheWrites() {
    try (ExactlyOnceKit kit = kit(OWN_CONNECTION, ConsumerSettings.builder("kit-plain-own-1"))) {
      assertThatThrownBy(() -> assertThat(kit).survivesFailureAfterWrites())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'failure after the handler's writes'")
          .hasMessageContaining("3 of 3 keys without exactly one effect")
          // A retried batch runs its handlers again: a key's escaped writes add up with every
          // attempt.
          .hasMessageMatching("(?s).*key fail-\\w+-1-0: [2-9] effects \\(expected exactly 1\\).*");
    }
  }

  @Test
  void aWriteOnAConnectionOfItsOwnIsCaughtByACrashBeforeTheCommit() {
    try (ExactlyOnceKit kit = kit(OWN_CONNECTION, ConsumerSettings.builder("kit-plain-own-2"))) {
      assertThatThrownBy(() -> assertThat(kit).survivesCrashBeforeCommit())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'crash before the database commit'")
          .hasMessageMatching(
              "(?s).*key crash-tx-\\w+-1-\\d: 2 effects \\(expected exactly 1\\).*");
    }
  }

  @Test
  void aConsumerWhoseKeysChangeOnEveryDeliveryIsCaughtByDuplicatesAndTheCrashAfterCommit() {
    // A key extractor that makes up a key per delivery: the inbox never sees the same key twice.
    ConsumerSettings.Builder newKeyPerDelivery =
        ConsumerSettings.builder("kit-plain-new-keys")
            .keyExtractor((record, payload) -> UUID.randomUUID().toString());
    try (ExactlyOnceKit kit = kit(TRANSACTIONAL, newKeyPerDelivery)) {
      assertThatThrownBy(() -> assertThat(kit).survivesDuplicateDelivery())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'duplicate delivery'")
          .hasMessageContaining(": 3 effects (expected exactly 1)");
      assertThatThrownBy(() -> assertThat(kit).survivesCrashAfterCommit())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining(
              "scenario 'crash after the database commit, before the offset commit'")
          .hasMessageContaining(": 2 effects (expected exactly 1)");
    }
  }

  @Test
  void aConsumerWhoseKeyIncludesThePayloadIsCaughtByTheConflictScenario() {
    // The key names the content, not the request: a reused key with another payload is a new key.
    ConsumerSettings.Builder keyWithContent =
        ConsumerSettings.builder("kit-plain-key-with-content")
            .keyExtractor(
                (record, payload) ->
                    new String(
                            record.headers().lastHeader("Idempotency-Key").value(),
                            StandardCharsets.UTF_8)
                        + "#"
                        + payload.hashCode());
    try (ExactlyOnceKit kit = kit(TRANSACTIONAL, keyWithContent)) {
      assertThat(kit).survivesDuplicateDelivery();
      assertThatThrownBy(() -> assertThat(kit).refusesConflictingPayload())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'same key, another payload'")
          .hasMessageContaining("3 of 3 keys without exactly one effect")
          .hasMessageMatching("(?s).*key conflict-\\w+-2-0: 2 effects \\(expected exactly 1\\).*")
          .hasMessageMatching(
              "(?s).*key conflict-\\w+-2-0: expected a CONFLICT dead letter on kit-plain-\\w+\\.DLT,"
                  + " found none.*");
    }
  }

  @Test
  void aRaceOnATopicOfOnePartitionFailsAsNotExercised() {
    // Every copy of a key lands on the one partition, so one consumer takes them one after another.
    try (ExactlyOnceKit kit =
        kit(TRANSACTIONAL, ConsumerSettings.builder("kit-plain-one-partition"), 1)) {
      assertThatThrownBy(() -> assertThat(kit).survivesConcurrentDuplicates())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'concurrent duplicates'")
          .hasMessageContaining("not exercised")
          .hasMessageContaining("0 of 3 keys");
    }
  }

  /**
   * A kit over consumers of a topic of their own. The handlers write the order under the key in the
   * payload, the kit's key, so that the count holds also for a consumer whose inbox keys differ
   * from it.
   */
  private static ExactlyOnceKit kit(MessageHandler handler, ConsumerSettings.Builder settings) {
    return kit(handler, settings, 2);
  }

  private static ExactlyOnceKit kit(
      MessageHandler handler, ConsumerSettings.Builder settings, int partitions) {
    String topic = "kit-plain-" + UUID.randomUUID().toString().substring(0, 8);
    try {
      Topics.create(topic, partitions, Map.of());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    String bootstrap = DevStack.shared().kafka().bootstrapServers();
    ConsumerSettings built =
        settings.retryBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).build();
    return ExactlyOnceKit.forConsumer(
            hooks ->
                IdempotentConsumer.builder(
                        BatchProcessor.builder(built)
                            .dataSource(database.dataSource())
                            .handler(handler)
                            .hooks(hooks))
                    .kafka(Map.of("bootstrap.servers", bootstrap, "group.id", built.operation()))
                    .topics(topic)
                    .build())
        .kafka(Map.of("bootstrap.servers", bootstrap))
        .topic(topic)
        .payload(key -> "{\"orderKey\":\"" + key + "\",\"qty\":1}")
        .effects(
            key ->
                Rows.count(database.dataSource(), "SELECT count(*) FROM orders WHERE key = ?", key))
        .build();
  }

  private static String orderKey(IncomingMessage message) {
    return message.payload().path("orderKey").asString();
  }

  private static void insertOrder(Connection connection, String key) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
      insert.setString(1, key);
      insert.executeUpdate();
    }
  }
}
