package dev.inboxoutbox.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code iox dlt} against real Kafka and PostgreSQL: an {@link IdempotentConsumer} dead-letters a
 * record its handler cannot apply yet, the operator lists and shows it, the handler is fixed, and
 * the re-drive applies it once however often it is sent.
 */
class DltCommandIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private final AtomicBoolean handlerBroken = new AtomicBoolean(true);
  private Database database;
  private String topic;
  private String deadLetterTopic;
  private IdempotentConsumer consumer;

  /** Places an order; fails every record while {@link #handlerBroken}, as a bug would. */
  private final MessageHandler placeOrder =
      (message, context) -> {
        if (handlerBroken.get()) {
          throw new IllegalStateException("order service bug: cannot place orders yet");
        }
        try (PreparedStatement insert =
            context.connection().prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
          insert.setString(1, message.idempotencyKey().value());
          insert.executeUpdate();
        }
        return Outcome.success("{\"placed\":true}");
      };

  @BeforeEach
  void setUp() throws Exception {
    database = DevStack.shared().postgres().createDatabase();
    InboxOutboxSchema.migrate(database.dataSource());
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // No unique constraint: only the inbox may stop a second effect.
      statement.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)");
    }
    topic = "dlt-orders-" + UUID.randomUUID().toString().substring(0, 8);
    deadLetterTopic = topic + ".DLT";
    Topics.create(topic, 2, Map.of());
    Topics.create(deadLetterTopic, 1, Map.of());
    consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder("order-consumer")
                    .dataSource(database.dataSource())
                    .handler(placeOrder))
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    bootstrap(),
                    "group.id",
                    "group-" + topic,
                    "metadata.max.age.ms",
                    "500"))
            .topics(topic)
            .build()
            .start();
  }

  @AfterEach
  void tearDown() {
    consumer.close();
    database.close();
  }

  @Test
  void listShowsReasonKeyAndOriginalAndFiltersByReason() throws Exception {
    deadLetterOneOfEach();

    ToolRun all = ToolRun.of("dlt", "list", deadLetterTopic, "--bootstrap", bootstrap());
    assertThat(all.exitCode()).isZero();
    assertThat(all.out())
        .contains("2 dead letters in " + deadLetterTopic)
        .contains("HANDLER_ERROR")
        .contains("MALFORMED_PAYLOAD")
        .contains("key-handler-error")
        .contains(topic + "-");

    ToolRun handlerErrors =
        ToolRun.of(
            "dlt",
            "list",
            deadLetterTopic,
            "--bootstrap",
            bootstrap(),
            "--reason",
            "HANDLER_ERROR");
    assertThat(handlerErrors.out())
        .contains("1 dead letters")
        .contains("key-handler-error")
        .doesNotContain("MALFORMED_PAYLOAD");

    ToolRun older =
        ToolRun.of(
            "dlt", "list", deadLetterTopic, "--bootstrap", bootstrap(), "--older-than", "1h");
    assertThat(older.out()).contains("0 dead letters");

    ToolRun json =
        ToolRun.of(
            "dlt",
            "list",
            deadLetterTopic,
            "--bootstrap",
            bootstrap(),
            "--newer-than",
            "1h",
            "--json");
    assertThat(json.out()).contains("\"reason\":\"HANDLER_ERROR\"").contains("\"offset\":");
  }

  @Test
  void showPrintsEveryHeaderAndTheValue() throws Exception {
    deadLetterOneOfEach();
    String position = positionOf("key-handler-error");

    ToolRun show = ToolRun.of("dlt", "show", deadLetterTopic, position, "--bootstrap", bootstrap());

    assertThat(show.exitCode()).isZero();
    assertThat(show.out())
        .contains("reason        HANDLER_ERROR")
        .contains("order service bug")
        .contains("Idempotency-Key: key-handler-error")
        .contains(DeadLetterReason.Headers.ORIGINAL_OFFSET + ": ")
        .contains("kafka_dlt-original-partition: ")
        .contains("{\"qty\":1}");
  }

  @Test
  void aRedriveAfterTheFixAppliesOnceAndASecondRedriveIsAbsorbedByTheInbox() throws Exception {
    deadLetterOneOfEach();
    handlerBroken.set(false);

    ToolRun first =
        ToolRun.of(
            "dlt",
            "redrive",
            deadLetterTopic,
            "--bootstrap",
            bootstrap(),
            "--reason",
            "HANDLER_ERROR");
    assertThat(first.exitCode()).isZero();
    assertThat(first.out()).contains("re-drove 1 of 1 selected dead letters");
    await("the re-driven order applied")
        .atMost(PATIENCE)
        .until(() -> Rows.count(database.dataSource(), "SELECT count(*) FROM orders") == 1);

    long duplicatesBefore = consumer.stats().snapshot().duplicates();
    ToolRun second =
        ToolRun.of(
            "dlt",
            "redrive",
            deadLetterTopic,
            "--bootstrap",
            bootstrap(),
            "--at",
            positionOf("key-handler-error"));
    assertThat(second.exitCode()).isZero();
    await("the second re-drive absorbed as a duplicate")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().duplicates() > duplicatesBefore);
    assertThat(Rows.count(database.dataSource(), "SELECT count(*) FROM orders")).isEqualTo(1);
    assertThat(
            Rows.count(
                database.dataSource(),
                "SELECT count(*) FROM inbox WHERE idempotency_key = 'key-handler-error'"))
        .isEqualTo(1);

    try (TopicReader original = new TopicReader(topic)) {
      List<ConsumerRecord<String, byte[]>> redriven =
          original.readUntil(
              records ->
                  records.stream()
                          .filter(r -> TopicReader.header(r, DeadLetter.REDRIVEN_FROM) != null)
                          .count()
                      == 2,
              PATIENCE);
      ConsumerRecord<String, byte[]> copy =
          redriven.stream()
              .filter(r -> TopicReader.header(r, DeadLetter.REDRIVEN_FROM) != null)
              .findFirst()
              .orElseThrow();
      assertThat(copy.key()).isEqualTo("customer-1");
      assertThat(TopicReader.header(copy, "Idempotency-Key")).isEqualTo("key-handler-error");
      assertThat(TopicReader.value(copy)).isEqualTo("{\"qty\":1}");
      assertThat(TopicReader.header(copy, DeadLetterReason.Headers.REASON)).isNull();
      assertThat(TopicReader.header(copy, "kafka_dlt-original-topic")).isNull();
    }
  }

  @Test
  void aMissingTopicIsOneLineAndExitCode2() {
    ToolRun run = ToolRun.of("dlt", "list", "no-such-topic.DLT", "--bootstrap", bootstrap());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip())
        .isEqualTo("iox dlt list: no topic no-such-topic.DLT on " + bootstrap());
  }

  private void deadLetterOneOfEach() throws Exception {
    try (TopicWriter kafka = new TopicWriter()) {
      kafka.send(
          RecordBuilder.to(topic)
              .key("customer-1")
              .idempotencyKey("key-handler-error")
              .json("{\"qty\":1}"));
      kafka.send(
          RecordBuilder.to(topic)
              .key("customer-2")
              .idempotencyKey("key-malformed")
              .json("{\"qty\":"));
    }
    await("both records dead-lettered")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().deadLettered() == 2);
  }

  private String positionOf(String idempotencyKey) {
    return new DeadLetterTopic(bootstrap(), deadLetterTopic)
        .read(d -> idempotencyKey.equals(d.idempotencyKey())).stream()
            .findFirst()
            .orElseThrow()
            .position();
  }

  private static String bootstrap() {
    return DevStack.shared().kafka().bootstrapServers();
  }
}
