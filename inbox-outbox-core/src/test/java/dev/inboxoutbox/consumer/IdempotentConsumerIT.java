package dev.inboxoutbox.consumer;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class IdempotentConsumerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private Database database;
  private String topic;
  private TopicWriter kafka;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  /**
   * Places an order per message; type "Mystery" is unknown, payload "explode" fails the handler.
   */
  private final MessageHandler placeOrder =
      (message, context) -> {
        String type = message.type().orElse("PlaceOrder");
        if (type.equals("Mystery")) {
          throw PoisonMessageException.unknownType(type);
        }
        if (message.payload().path("explode").asBoolean()) {
          throw new IllegalStateException("handler cannot apply this order");
        }
        int quantity = message.payload().path("qty").asInt();
        if (quantity <= 0) {
          return Outcome.rejected("{\"reason\":\"quantity must be positive\"}");
        }
        try (PreparedStatement insert =
            context.connection().prepareStatement("INSERT INTO orders (key, qty) VALUES (?, ?)")) {
          insert.setString(1, message.idempotencyKey().value());
          insert.setInt(2, quantity);
          insert.executeUpdate();
        }
        context.emit(
            OutboxEvent.of(
                "order", message.recordKey(), "PaymentRequested", "{\"qty\":" + quantity + "}"));
        return Outcome.success("{\"placed\":true}");
      };

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // No unique constraint on purpose: only the inbox may stop a second effect.
      statement.execute(
          "CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL, qty int NOT NULL)");
    }
    topic = "orders-" + UUID.randomUUID().toString().substring(0, 8);
    // Created up front: an idempotent producer whose first batch meets a topic still being
    // auto-created can end up retrying an out-of-order sequence for ever (seen once in a full
    // build).
    Topics.create(topic, 3, Map.of());
    kafka = new TopicWriter();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
    kafka.close();
    database.close();
  }

  @Test
  void redeliveriesAndClientRetriesApplyOnceAndEmitOneEventEach() throws Exception {
    for (int i = 0; i < 20; i++) {
      kafka.send(
          order("c-" + i)
              .idempotencyKey("key-" + i)
              .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
              .header("tracestate", "congo=t61rcWkgMzE")
              .json("{\"qty\":" + (i + 1) + "}"));
    }
    for (int i = 0; i < 10; i++) {
      kafka.send(
          order("c-" + i)
              .idempotencyKey("key-" + i)
              .json("{ \"qty\" : " + (i + 1) + " }")); // a client retry, re-serialised
    }
    IdempotentConsumer consumer =
        started(consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource()));

    await("all 30 records consumed")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 30);
    ConsumerStats.Snapshot stats = consumer.stats().snapshot();
    assertThat(stats.applied()).isEqualTo(20);
    assertThat(stats.duplicates()).isEqualTo(10);
    assertThat(stats.deadLettered()).isZero();
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(20);
    assertThat(count("SELECT count(DISTINCT key) FROM orders")).isEqualTo(20);
    assertThat(count("SELECT count(*) FROM outbox")).isEqualTo(20);
    assertThat(count("SELECT count(*) FROM outbox WHERE causation_id LIKE 'key-%'")).isEqualTo(20);
    assertThat(
            count(
                "SELECT count(*) FROM outbox WHERE traceparent LIKE '00-4bf92f%'"
                    + " AND tracestate = 'congo=t61rcWkgMzE'"))
        .as("without a tracer the incoming trace context is carried over, both headers")
        .isEqualTo(20);
    assertThat(count("SELECT count(*) FROM inbox WHERE status = 'COMPLETED'")).isEqualTo(20);
  }

  @Test
  void aCrashAfterTheDatabaseCommitBeforeTheOffsetCommitLeavesOneEffect() throws Exception {
    for (int i = 0; i < 40; i++) {
      kafka.send(order("c-" + (i % 4)).idempotencyKey("key-" + i).json("{\"qty\":1}"));
    }
    AtomicBoolean crashed = new AtomicBoolean();
    BatchProcessor.Hooks crashOnce =
        new BatchProcessor.Hooks() {
          @Override
          public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
            if (crashed.compareAndSet(false, true)) {
              throw new IllegalStateException("injected crash after the database commit");
            }
          }
        };
    IdempotentConsumer first =
        started(consumer(settings().build(), crashOnce, database.dataSource()));
    // The injected crash ends the first consumer's thread with an uncaught exception, on purpose;
    // Awaitility would otherwise fail whichever wait it happens during.
    await("first consumer crashed")
        .dontCatchUncaughtExceptions()
        .atMost(PATIENCE)
        .until(crashed::get);
    long appliedBeforeCrash = first.stats().snapshot().applied();
    assertThat(appliedBeforeCrash).isPositive();

    IdempotentConsumer second =
        started(consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource()));
    await("second consumer replays the uncommitted batch")
        .dontCatchUncaughtExceptions()
        .atMost(PATIENCE)
        .until(
            () ->
                count("SELECT count(*) FROM inbox") == 40
                    && second.stats().snapshot().duplicates() >= appliedBeforeCrash);

    System.out.printf(
        "crash after DB commit: %d applied before the crash, %d redelivered and absorbed%n",
        appliedBeforeCrash, second.stats().snapshot().duplicates());
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(40);
    assertThat(count("SELECT count(*) FROM outbox")).isEqualTo(40);
  }

  @Test
  void everyDeadLetterReasonEndToEndWhileThePartitionMovesOn() throws Exception {
    String aggregate =
        "c-1"; // one record key: one partition, so poison sits in front of good records
    kafka.send(order(aggregate).idempotencyKey("ok-1").json("{\"qty\":1}"));
    kafka.send(order(aggregate).idempotencyKey("bad-json").json("{\"qty\":"));
    kafka.send(order(aggregate).json("{\"qty\":1}"));
    kafka.send(order(aggregate).idempotencyKey("x".repeat(256)).json("{\"qty\":1}"));
    kafka.send(
        order(aggregate).idempotencyKey("ok-1").json("{\"qty\":2}")); // same key, other payload
    kafka.send(order(aggregate).idempotencyKey("mystery").type("Mystery").json("{\"qty\":1}"));
    kafka.send(
        order(aggregate)
            .idempotencyKey("big")
            .json("{\"qty\":1,\"pad\":\"" + "p".repeat(600) + "\"}"));
    kafka.send(
        order(aggregate)
            .idempotencyKey("old")
            .json("{\"qty\":1}")
            .timestamp(Instant.now().minus(Duration.ofDays(8)).toEpochMilli()));
    kafka.send(order(aggregate).idempotencyKey("explode").json("{\"qty\":1,\"explode\":true}"));
    kafka.send(
        order(aggregate)
            .idempotencyKey("ok-2")
            .json("{\"qty\":0}")); // a business rejection: stored, not dead-lettered
    kafka.send(order(aggregate).idempotencyKey("ok-3").json("{\"qty\":3}"));

    IdempotentConsumer consumer =
        started(
            consumer(
                settings().maxPayloadBytes(500).build(),
                BatchProcessor.Hooks.NONE,
                database.dataSource()));
    await("all records consumed")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 11);

    List<ConsumerRecord<String, byte[]>> deadLetters;
    try (TopicReader reader = new TopicReader(topic + ".DLT")) {
      deadLetters = reader.readUntil(seen -> seen.size() >= 8, PATIENCE);
    }
    Map<String, String> reasonByKey = new HashMap<>();
    Map<String, String> exceptionByKey = new HashMap<>();
    for (ConsumerRecord<String, byte[]> dead : deadLetters) {
      assertThat(header(dead, DeadLetters.ORIGINAL_TOPIC)).isEqualTo(topic);
      assertThat(header(dead, DeadLetters.ORIGINAL_PARTITION)).isNotNull();
      assertThat(header(dead, DeadLetters.ORIGINAL_OFFSET)).isNotNull();
      assertThat(header(dead, DeadLetters.DETAIL)).isNotBlank();
      assertThat(header(dead, DeadLetters.CONSUMER)).isEqualTo("order-consumer");
      String key = header(dead, DeadLetters.IDEMPOTENCY_KEY);
      reasonByKey.put(
          key == null ? "<none>" : key.length() > 20 ? "<long>" : key,
          header(dead, DeadLetters.REASON));
      // spring-kafka's dead-letter headers, with its types: partition an int, offset a long.
      assertThat(header(dead, "kafka_dlt-original-topic")).isEqualTo(topic);
      assertThat(
              ByteBuffer.wrap(dead.headers().lastHeader("kafka_dlt-original-partition").value())
                  .getInt())
          .isEqualTo(Integer.parseInt(header(dead, DeadLetters.ORIGINAL_PARTITION)));
      assertThat(
              ByteBuffer.wrap(dead.headers().lastHeader("kafka_dlt-original-offset").value())
                  .getLong())
          .isEqualTo(Long.parseLong(header(dead, DeadLetters.ORIGINAL_OFFSET)));
      assertThat(header(dead, "kafka_dlt-original-consumer-group")).isEqualTo("order-consumer");
      assertThat(header(dead, "kafka_dlt-exception-message"))
          .startsWith(header(dead, DeadLetters.REASON) + ": ");
      exceptionByKey.put(String.valueOf(key), header(dead, "kafka_dlt-exception-fqcn"));
    }
    assertThat(exceptionByKey)
        .containsEntry("explode", IllegalStateException.class.getName())
        .containsEntry("mystery", PoisonMessageException.class.getName())
        .containsEntry("bad-json", "dev.inboxoutbox.inbox.Inbox$InvalidPayloadException")
        .containsEntry("ok-1", DeadLetterReason.class.getName());
    assertThat(reasonByKey)
        .containsEntry("bad-json", "MALFORMED_PAYLOAD")
        .containsEntry("<none>", "INVALID_KEY")
        .containsEntry("<long>", "INVALID_KEY")
        .containsEntry("ok-1", "CONFLICT")
        .containsEntry("mystery", "UNKNOWN_TYPE")
        .containsEntry("big", "OVERSIZE")
        .containsEntry("old", "TOO_OLD")
        .containsEntry("explode", "HANDLER_ERROR")
        .hasSize(8);
    assertThat(count("SELECT count(*) FROM orders")).as("ok-1 and ok-3 applied").isEqualTo(2);
    assertThat(count("SELECT qty FROM orders WHERE key = 'ok-1'"))
        .as("conflict left the original")
        .isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox WHERE idempotency_key = 'ok-2' AND status = 'FAILED'"))
        .isEqualTo(1);
    ConsumerStats.Snapshot stats = consumer.stats().snapshot();
    assertThat(stats.deadLettered()).isEqualTo(8);
    assertThat(stats.rejections()).isEqualTo(1);
    assertThat(stats.batchFallbacks()).isPositive();
  }

  @Test
  void aControlCharacterInAScopeHeaderOrAKeyThatIsNotUtf8IsRefusedUpFrontAsAnInvalidKey()
      throws Exception {
    String aggregate = "c-1";
    kafka.send(
        order(aggregate)
            .idempotencyKey("nul-tenant")
            .header("tenant", "acme\u0000x")
            .json("{\"qty\":1}"));
    kafka.send(
        order(aggregate)
            .idempotencyKey("nul-principal")
            .header("principal", "\u0000")
            .json("{\"qty\":1}"));
    kafka.send(
        order(aggregate)
            .header("Idempotency-Key", new byte[] {'k', '-', (byte) 0xE9}) // "k-é" in Latin-1
            .json("{\"qty\":1}"));
    kafka.send(order(aggregate).idempotencyKey("k-caf\u00e9").json("{\"qty\":1}"));

    IdempotentConsumer consumer =
        started(
            consumer(
                settings().tenantHeader("tenant").principalHeader("principal").build(),
                BatchProcessor.Hooks.NONE,
                database.dataSource()));
    await("all records consumed")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 4);

    List<ConsumerRecord<String, byte[]>> deadLetters;
    try (TopicReader reader = new TopicReader(topic + ".DLT")) {
      deadLetters = reader.readUntil(seen -> seen.size() >= 3, PATIENCE);
    }
    assertThat(deadLetters)
        .extracting(dead -> header(dead, DeadLetters.REASON))
        .containsExactly("INVALID_KEY", "INVALID_KEY", "INVALID_KEY");
    assertThat(deadLetters)
        .extracting(dead -> header(dead, DeadLetters.DETAIL))
        .anySatisfy(detail -> assertThat(detail).contains("tenant").contains("control character"))
        .anySatisfy(
            detail -> assertThat(detail).contains("principal").contains("control character"))
        .anySatisfy(detail -> assertThat(detail).contains("UTF-8"));
    assertThat(count("SELECT count(*) FROM orders WHERE key = 'k-caf\u00e9'"))
        .as("a UTF-8 key applies")
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(1);
  }

  @Test
  void aValueTooLargeForTheDeadLetterProducerIsLeftOutOfTheDeadLetterAndThePartitionMovesOn()
      throws Exception {
    // Compressed, 2 MiB fits under the broker's 1 MiB limit; the dead-letter producer's
    // max.request.size (1 MiB, counted before compression) cannot carry it.
    byte[] twoMiB =
        ("{\"qty\":1,\"pad\":\"" + "p".repeat(2 * 1024 * 1024) + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    RecordMetadata bigAt;
    try (TopicWriter compressing =
        new TopicWriter(
            Map.of(
                "compression.type", "gzip", "max.request.size", String.valueOf(4 * 1024 * 1024)))) {
      bigAt =
          compressing.send(
              order("c-1")
                  .idempotencyKey("big")
                  .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                  .body(twoMiB));
      compressing.send(order("c-1").idempotencyKey("after-big").json("{\"qty\":2}"));
    }

    IdempotentConsumer consumer =
        started(consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource()));
    await("both records done, the oversize one dead-lettered")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 2);

    List<ConsumerRecord<String, byte[]>> deadLetters;
    try (TopicReader reader = new TopicReader(topic + ".DLT")) {
      deadLetters = reader.readUntil(seen -> !seen.isEmpty(), PATIENCE);
    }
    assertThat(deadLetters).hasSize(1);
    ConsumerRecord<String, byte[]> dead = deadLetters.get(0);
    assertThat(dead.key()).as("the original record key").isEqualTo("c-1");
    assertThat(dead.value()).as("the value stays in the original topic").isNull();
    assertThat(header(dead, DeadLetters.REASON)).isEqualTo("OVERSIZE");
    assertThat(header(dead, DeadLetters.VALUE_OMITTED_BYTES))
        .isEqualTo(String.valueOf(twoMiB.length));
    assertThat(header(dead, DeadLetters.ORIGINAL_TOPIC)).isEqualTo(topic);
    assertThat(header(dead, DeadLetters.ORIGINAL_PARTITION))
        .isEqualTo(String.valueOf(bigAt.partition()));
    assertThat(header(dead, DeadLetters.ORIGINAL_OFFSET)).isEqualTo(String.valueOf(bigAt.offset()));
    assertThat(header(dead, DeadLetters.IDEMPOTENCY_KEY)).isEqualTo("big");
    assertThat(header(dead, "Idempotency-Key")).isEqualTo("big");
    assertThat(header(dead, "traceparent")).startsWith("00-4bf92f");
    assertThat(count("SELECT count(*) FROM orders WHERE key = 'after-big'")).isEqualTo(1);
    assertThat(consumer.stats().deadLetters(DeadLetterReason.OVERSIZE)).isEqualTo(1);
    assertThat(consumer.stats().snapshot().deadLettersWithoutValue()).isEqualTo(1);
    assertThat(consumer.stats().snapshot().deadLetterFailures()).isZero();
    assertThat(consumer.stats().failure()).as("nothing left failing").isEmpty();
    assertThat(consumer.stuck()).isEmpty();
  }

  @Test
  void aDeadLetterTheTopicRefusesHoldsThePartitionVisiblyUntilTheTopicTakesIt() throws Exception {
    String deadLetterTopic = topic + ".DLT";
    // Smaller than the dead letter's headers alone: no dead letter can be written.
    Topics.create(deadLetterTopic, 1, Map.of("max.message.bytes", "100"));
    String malformed = "{\"pad\":\"" + "x".repeat(20_000);
    kafka.send(order("c-1").idempotencyKey("bad-json").json(malformed));
    kafka.send(order("c-1").idempotencyKey("ok-1").json("{\"qty\":1}"));
    IdempotentConsumer consumer =
        started(
            consumer(
                settings().retryBackoff(Duration.ofMillis(50), Duration.ofMillis(400)).build(),
                BatchProcessor.Hooks.NONE,
                database.dataSource()));
    await("the batch retried")
        .atMost(PATIENCE)
        .until(
            () -> consumer.stats().failure().map(f -> f.consecutiveFailures() >= 3).orElse(false));
    ConsumerStats.Failure failure =
        consumer.stuck().orElseThrow(() -> new AssertionError("not reported stuck"));
    assertThat(failure.retriable()).as("no retry can fix it").isFalse();
    assertThat(failure.lastError())
        .contains("RecordTooLargeException")
        .contains("without its value");
    assertThat(failure.partitions()).hasSize(1);
    assertThat(consumer.stats().snapshot().deadLetterFailures()).isGreaterThanOrEqualTo(3);
    assertThat(consumer.stats().snapshot().transientFailures()).as("not called transient").isZero();
    assertThat(consumer.stats().snapshot().records()).as("nothing skipped").isZero();

    // Room for the headers, not for the 20 kB value.
    Topics.set(deadLetterTopic, "max.message.bytes", "8192");
    await("the partition moves on once the topic takes the dead letter")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 2);
    List<ConsumerRecord<String, byte[]>> deadLetters;
    try (TopicReader reader = new TopicReader(deadLetterTopic)) {
      deadLetters = reader.readUntil(seen -> !seen.isEmpty(), PATIENCE);
    }
    ConsumerRecord<String, byte[]> dead = deadLetters.get(0);
    assertThat(dead.value()).isNull();
    assertThat(header(dead, DeadLetters.REASON)).isEqualTo("MALFORMED_PAYLOAD");
    assertThat(header(dead, DeadLetters.VALUE_OMITTED_BYTES))
        .isEqualTo(String.valueOf(malformed.length()));
    assertThat(count("SELECT count(*) FROM orders WHERE key = 'ok-1'"))
        .as("applied once through the retries")
        .isEqualTo(1);
    assertThat(consumer.stats().failure()).as("progress ends the failure").isEmpty();
  }

  @Test
  void aBatchBlockedOnALockIsStuckOnceItHasNotFinishedForStuckAfter() throws Exception {
    // Another session holds the handler's table: the batch neither fails nor finishes, which is
    // no retry state, and only its age tells that the partition stands still.
    try (Connection holder = database.dataSource().getConnection();
        Statement holding = holder.createStatement()) {
      holder.setAutoCommit(false);
      holding.execute("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE");
      kafka.send(order("c-1").idempotencyKey("blocked-1").json("{\"qty\":1}"));
      IdempotentConsumer consumer =
          started(
              consumer(
                  settings().stuckAfter(Duration.ofSeconds(1)).build(),
                  BatchProcessor.Hooks.NONE,
                  database.dataSource()));

      ConsumerStats.Failure failure =
          await("reported stuck while the batch waits")
              .atMost(PATIENCE)
              .until(consumer::stuck, Optional::isPresent)
              .orElseThrow();
      assertThat(failure.retriable()).isTrue();
      assertThat(failure.consecutiveFailures()).as("nothing failed").isZero();
      assertThat(failure.lastError()).contains("batch of 1 record").contains("not finished");
      assertThat(failure.partitions()).hasSize(1);

      holder.rollback();
      await("the batch done once the lock is gone")
          .atMost(PATIENCE)
          .until(() -> consumer.stats().snapshot().records() >= 1);
      assertThat(consumer.stuck()).isEmpty();
      assertThat(count("SELECT count(*) FROM orders WHERE key = 'blocked-1'")).isEqualTo(1);
    }
  }

  @Test
  void transientDatabaseFailuresPauseAndRetryWithoutLossOrDeadLetters() throws Exception {
    for (int i = 0; i < 10; i++) {
      kafka.send(order("c-" + i).idempotencyKey("key-" + i).json("{\"qty\":1}"));
    }
    DataSource flaky = new FailingFirst(database.dataSource(), 3);
    IdempotentConsumer consumer =
        started(
            consumer(
                settings().retryBackoff(Duration.ofMillis(50), Duration.ofMillis(400)).build(),
                BatchProcessor.Hooks.NONE,
                flaky));
    await("all orders applied after the outage")
        .atMost(PATIENCE)
        .until(() -> count("SELECT count(*) FROM orders") == 10);
    ConsumerStats.Snapshot stats = consumer.stats().snapshot();
    assertThat(stats.transientFailures()).isGreaterThanOrEqualTo(3);
    assertThat(stats.deadLettered()).isZero();
  }

  @Test
  void aKeyExtractorThatMakesEveryDeliveryNewLetsRepeatsApplyTwice() throws Exception {
    // What the chaos negative control installs: the verifier must then see double effects.
    for (int i = 0; i < 5; i++) {
      kafka.send(order("c-" + i).idempotencyKey("key-" + i).json("{\"qty\":1}"));
      kafka.send(order("c-" + i).idempotencyKey("key-" + i).json("{\"qty\":1}"));
    }
    KeyExtractor header = KeyExtractor.idempotencyKeyHeader();
    KeyExtractor everyDeliveryNew =
        (record, payload) -> header.extract(record, payload) + "~" + UUID.randomUUID();
    IdempotentConsumer consumer =
        started(
            consumer(
                settings().keyExtractor(everyDeliveryNew).build(),
                BatchProcessor.Hooks.NONE,
                database.dataSource()));
    await("all consumed").atMost(PATIENCE).until(() -> consumer.stats().snapshot().records() >= 10);
    assertThat(count("SELECT count(*) FROM orders")).isEqualTo(10);
    assertThat(consumer.stats().snapshot().duplicates()).isZero();
  }

  @Test
  void aGroupRebalancesCooperativelyUnlessTheKafkaPropertiesSayOtherwise() throws Exception {
    // Cooperative rebalancing keeps the survivors' partitions when a member dies or joins: a
    // restarted instance does not stop the whole group.
    kafka.send(order("c-1").idempotencyKey("key-1").json("{\"qty\":1}"));
    IdempotentConsumer consumer =
        started(consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource()));
    await("the record consumed")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 1);
    assertThat(Topics.assignorOf("group-" + topic)).isEqualTo("cooperative-sticky");
  }

  @Test
  void partitionsAssignedAndRevokedAreLoggedAtInfoWithTheGroup() throws Exception {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    ch.qos.logback.classic.Logger consumerLog =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(IdempotentConsumer.class);
    log.start();
    consumerLog.addAppender(log);
    try {
      IdempotentConsumer consumer =
          started(consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource()));
      String group = "group-" + topic;
      await("the assignment logged")
          .atMost(PATIENCE)
          .until(() -> infoLines(log, group + ": partitions assigned: ").size() == 1);
      assertThat(infoLines(log, group + ": partitions assigned: ").get(0))
          .contains(topic + "-0", topic + "-1", topic + "-2");

      consumer.close();
      assertThat(infoLines(log, group + ": partitions revoked: "))
          .singleElement()
          .asString()
          .contains(topic + "-0", topic + "-1", topic + "-2");
    } finally {
      consumerLog.detachAppender(log);
    }
  }

  /** The INFO messages starting with {@code prefix}, copied under the appender's lock. */
  private static List<String> infoLines(ListAppender<ILoggingEvent> log, String prefix) {
    List<ILoggingEvent> events;
    synchronized (log) {
      events = List.copyOf(log.list);
    }
    return events.stream()
        .filter(event -> event.getLevel() == Level.INFO)
        .map(ILoggingEvent::getFormattedMessage)
        .filter(message -> message.startsWith(prefix))
        .toList();
  }

  @Test
  void closeWaitsForTheRunningBatchAlsoWhenTheCallerRunsTheLoop() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    MessageHandler held =
        (message, context) -> {
          entered.countDown();
          release.await();
          return placeOrder.handle(message, context);
        };
    IdempotentConsumer consumer =
        consumer(settings().build(), BatchProcessor.Hooks.NONE, database.dataSource(), held);
    ExecutorService callersThread = Executors.newSingleThreadExecutor();
    cleanup.add(callersThread::shutdownNow);
    Future<?> loop = callersThread.submit(consumer::run);
    kafka.send(order("c-1").idempotencyKey("held").json("{\"qty\":1}"));
    assertThat(entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("batch running").isTrue();

    CompletableFuture<Void> closed = CompletableFuture.runAsync(consumer::close);
    await("close waiting for the running batch")
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !closed.isDone());
    release.countDown();

    closed.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    // What close waited for is the batch's commit: checked before anything else can happen. The
    // caller's Future completes a moment after run() has returned, so it is only awaited.
    assertThat(count("SELECT count(*) FROM orders WHERE key = 'held'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key = 'held'"))
        .as("the batch committed before close returned, not cut off by close")
        .isEqualTo(1);
    loop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  private ConsumerSettings.Builder settings() {
    return ConsumerSettings.builder("order-consumer");
  }

  private IdempotentConsumer consumer(
      ConsumerSettings settings, BatchProcessor.Hooks hooks, DataSource dataSource) {
    return consumer(settings, hooks, dataSource, placeOrder);
  }

  private IdempotentConsumer consumer(
      ConsumerSettings settings,
      BatchProcessor.Hooks hooks,
      DataSource dataSource,
      MessageHandler handler) {
    IdempotentConsumer consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder(settings)
                    .dataSource(dataSource)
                    .handler(handler)
                    .hooks(hooks))
            .kafka(
                Map.of(
                    "bootstrap.servers", DevStack.shared().kafka().bootstrapServers(),
                    "group.id", "group-" + topic,
                    "metadata.max.age.ms", "500",
                    "session.timeout.ms", "6000",
                    "heartbeat.interval.ms", "500"))
            .topics(topic)
            .build();
    cleanup.add(consumer);
    return consumer;
  }

  private static IdempotentConsumer started(IdempotentConsumer consumer) {
    return consumer.start();
  }

  /** A record to the test's topic; the record key picks the partition. */
  private RecordBuilder order(String recordKey) {
    return RecordBuilder.to(topic).key(recordKey);
  }

  private long count(String sql) {
    return Rows.count(database.dataSource(), sql);
  }

  /** A real data source whose first connections fail the way a restarting database does. */
  private static final class FailingFirst implements DataSource {
    private final DataSource delegate;
    private final AtomicInteger failuresLeft;

    FailingFirst(DataSource delegate, int failures) {
      this.delegate = delegate;
      this.failuresLeft = new AtomicInteger(failures);
    }

    @Override
    public Connection getConnection() throws SQLException {
      if (failuresLeft.getAndDecrement() > 0) {
        throw new SQLTransientConnectionException("the database system is starting up", "57P03");
      }
      return delegate.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return delegate.isWrapperFor(iface);
    }
  }
}
