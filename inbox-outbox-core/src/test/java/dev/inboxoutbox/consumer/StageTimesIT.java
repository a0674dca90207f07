package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.consumer.ConsumerStats.Stage;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ConsumerStats#stageNanos()}: each stage gets the time of its own work, and the stages of a
 * batch add up to no more than the batch's wall time (nothing is counted twice).
 */
class StageTimesIT {

  private static final long BEFORE_BATCH_MILLIS = 30;
  private static final long HANDLE_MILLIS = 10;

  private Database database;
  private KafkaProducer<String, byte[]> deadLetters;
  private String topic;

  /** Sleeps a known time in each hook; rejects key "r" (an outcome to correct), poison fails. */
  private final MessageHandler sleepy =
      new MessageHandler() {
        @Override
        public void beforeBatch(List<IncomingMessage> messages, Connection connection)
            throws Exception {
          Thread.sleep(BEFORE_BATCH_MILLIS);
        }

        @Override
        public Outcome handle(IncomingMessage message, HandlerContext context) throws Exception {
          Thread.sleep(HANDLE_MILLIS);
          if (message.payload().path("poison").asBoolean()) {
            throw new IllegalStateException("cannot apply this one");
          }
          return message.idempotencyKey().value().startsWith("r")
              ? Outcome.rejected("{\"reason\":\"no\"}")
              : Outcome.success();
        }
      };

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    topic = "stage-times-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 1, Map.of());
    Topics.create(topic + ".DLT", 1, Map.of());
    deadLetters =
        BatchProcessor.newDeadLetterProducer(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
            "stage-times-it");
  }

  @AfterEach
  void tearDown() {
    deadLetters.close();
    database.close();
  }

  @Test
  void eachStageGetsItsOwnWorkAndTheStagesAddUpToNoMoreThanTheBatch() throws Exception {
    BatchProcessor processor = processor();

    long started = System.nanoTime();
    processor.process(
        List.of(
            record("a", "{}", 0),
            record("b", "{}", 1),
            record("r1", "{}", 2),
            RecordBuilder.to(topic)
                .idempotencyKey("m")
                .body("not json".getBytes(StandardCharsets.UTF_8))
                .consumed(0, 3)));
    long wall = System.nanoTime() - started;

    Map<Stage, Long> stages = processor.stats().stageNanos();
    assertThat(stages.get(Stage.HANDLER))
        .as("beforeBatch and three handle calls")
        .isGreaterThanOrEqualTo(millis(BEFORE_BATCH_MILLIS + 3 * HANDLE_MILLIS));
    assertThat(stages)
        .as("the processor's own stages")
        .allSatisfy(
            (stage, nanos) -> {
              if (stage == Stage.POLL || stage == Stage.OFFSET_COMMIT) {
                assertThat(nanos).as("%s belongs to the poll loop", stage).isZero();
              } else {
                assertThat(nanos).as("%s", stage).isPositive();
              }
            });
    assertThat(sum(stages))
        .as("stages of the batch against its wall time")
        .isLessThanOrEqualTo(wall);
  }

  @Test
  void aBatchThatFallsBackAddsTheStagesOfEveryTransactionItRan() throws Exception {
    BatchProcessor processor = processor();
    long started = System.nanoTime();
    processor.process(List.of(record("a", "{}", 0), record("b", "{}", 1)));
    Map<Stage, Long> afterOne = processor.stats().stageNanos();

    processor.process(
        List.of(record("c", "{}", 2), record("d", "{\"poison\":true}", 3), record("e", "{}", 4)));
    long wall = System.nanoTime() - started;

    Map<Stage, Long> afterBoth = processor.stats().stageNanos();
    assertThat(processor.stats().snapshot().batchFallbacks()).isEqualTo(1);
    for (Stage stage : List.of(Stage.VALIDATION, Stage.CLAIM, Stage.HANDLER, Stage.COMMIT)) {
      assertThat(afterBoth.get(stage)).as("%s", stage).isGreaterThan(afterOne.get(stage));
    }
    // The batch (c, d, e) failed at d, then c, d and e each ran alone: 2 + 3 handle calls, and
    // beforeBatch in each of the 4 transactions.
    assertThat(afterBoth.get(Stage.HANDLER) - afterOne.get(Stage.HANDLER))
        .isGreaterThanOrEqualTo(millis(4 * BEFORE_BATCH_MILLIS + 5 * HANDLE_MILLIS));
    assertThat(sum(afterBoth)).isLessThanOrEqualTo(wall);
  }

  @Test
  void thePollLoopTimesItsPollsAndOffsetCommits() throws Exception {
    try (TopicWriter kafka = new TopicWriter()) {
      for (int i = 0; i < 5; i++) {
        kafka.send(RecordBuilder.to(topic).idempotencyKey("k-" + i).json("{}"));
      }
    }
    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder("stage-times")
                    .dataSource(database.dataSource())
                    .handler((message, context) -> Outcome.success()))
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    DevStack.shared().kafka().bootstrapServers(),
                    "group.id",
                    "group-" + topic))
            .topics(topic)
            .build()
            .start()) {
      await("five records consumed")
          .atMost(Duration.ofSeconds(60))
          .until(() -> consumer.stats().snapshot().records() >= 5);
      // The offset commit follows the batch: wait for it too.
      await("offsets committed")
          .atMost(Duration.ofSeconds(10))
          .until(() -> consumer.stats().stageNanos(Stage.OFFSET_COMMIT) > 0);

      Map<Stage, Long> stages = consumer.stats().stageNanos();
      for (Stage stage :
          List.of(Stage.POLL, Stage.VALIDATION, Stage.CLAIM, Stage.HANDLER, Stage.COMMIT)) {
        assertThat(stages.get(stage)).as("%s", stage).isPositive();
      }
    }
  }

  private BatchProcessor processor() {
    return BatchProcessor.builder("stage-times")
        .dataSource(database.dataSource())
        .handler(sleepy)
        .deadLetterProducer(deadLetters)
        .build();
  }

  private ConsumerRecord<String, byte[]> record(String key, String json, long offset) {
    return RecordBuilder.to(topic).key(key).idempotencyKey(key).json(json).consumed(0, offset);
  }

  private static long millis(long millis) {
    return Duration.ofMillis(millis).toNanos();
  }

  private static long sum(Map<Stage, Long> stages) {
    return stages.values().stream().mapToLong(Long::longValue).sum();
  }
}
