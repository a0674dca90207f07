package dev.inboxoutbox.test;

import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.core.ConditionTimeoutException;
import org.springframework.context.ApplicationContext;

/**
 * Runs exactly-once scenarios against an application's own consumer: it sends records with fresh
 * idempotency keys to the consumer's topic, injects the scenario's fault through the consumer's
 * {@link BatchProcessor.Hooks}, waits until every record it sent was processed and then counts each
 * key's effects with the application's own query. Assert with {@link ExactlyOnceAssert}:
 *
 * <pre>{@code
 * try (ExactlyOnceKit kit = ExactlyOnceKit.forConsumer(hooks -> orderConsumer(hooks))
 *     .kafka(Map.of("bootstrap.servers", bootstrap))
 *     .topic("orders")
 *     .payload(key -> "{\"orderId\":\"" + key + "\",\"qty\":1}")
 *     .effects(key -> countOrders(key))
 *     .build()) {
 *   ExactlyOnceAssert.assertThat(kit).isExactlyOnce();
 * }
 * }</pre>
 *
 * <p>Each scenario uses keys of its own, so scenarios run one after another against the same
 * consumer group, tables and topic. See docs/test-kit.md for what each scenario does.
 */
public final class ExactlyOnceKit implements AutoCloseable {

  /**
   * Builds the application's consumer, unstarted, with the kit's hooks set on its processing:
   * {@code IdempotentConsumer.builder(BatchProcessor.builder(op)...hooks(hooks))...build()}. The
   * kit runs it and closes it; it calls the factory again for each scenario, for a second consumer
   * of the group and for the consumer that replaces a crashed one.
   */
  @FunctionalInterface
  public interface ConsumerFactory {
    IdempotentConsumer create(BatchProcessor.Hooks hooks) throws Exception;
  }

  /**
   * The application's effects of one idempotency key, counted by its own query: rows written, calls
   * recorded, events emitted. Exactly once means exactly 1 per key.
   */
  @FunctionalInterface
  public interface Effects {
    long count(String key) throws Exception;
  }

  /** The moment the race scenario keeps a key's first transaction open. */
  static final Duration RACE_HOLD = Duration.ofMillis(300);

  /** Copies of a key the race scenario sends, one per partition, at most this many. */
  private static final int RACE_COPIES = 4;

  private final Target target;
  private final String topic;
  private final String deadLetterTopic;
  private final Function<String, String> payload;
  private final Function<String, String> conflictingPayload;
  private final Effects effects;
  private final String keyHeader;
  private final Map<String, String> headers;
  private final int keys;
  private final Duration patience;
  private final Map<String, Object> kafka;
  private final KafkaProducer<String, byte[]> producer;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private int scenarios;

  private ExactlyOnceKit(Builder b) {
    this.target = b.target;
    this.topic = Objects.requireNonNull(b.topic, "topic");
    this.deadLetterTopic = b.deadLetterTopic != null ? b.deadLetterTopic : topic + ".DLT";
    this.payload = Objects.requireNonNull(b.payload, "payload");
    this.conflictingPayload =
        b.conflictingPayload != null
            ? b.conflictingPayload
            : key -> withConflictField(payload.apply(key));
    this.effects = Objects.requireNonNull(b.effects, "effects");
    this.keyHeader = b.keyHeader;
    this.headers = Map.copyOf(b.headers);
    this.keys = b.keys;
    this.patience = b.patience;
    Map<String, Object> properties = new HashMap<>(b.kafka);
    if (!properties.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      String bootstrap = target.bootstrapServers();
      if (bootstrap == null) {
        throw new IllegalArgumentException(
            "kafka(...) needs bootstrap.servers: where the consumer under test reads");
      }
      properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }
    this.kafka = Map.copyOf(properties);
    Map<String, Object> producerProperties = new HashMap<>(kafka);
    producerProperties.put(ProducerConfig.ACKS_CONFIG, "all");
    producerProperties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    this.producer =
        new KafkaProducer<>(producerProperties, new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * A kit for a plain-Java {@link IdempotentConsumer}: the kit starts the consumers the factory
   * builds, one per scenario (two for the race), and restarts them after a simulated crash.
   */
  public static Builder forConsumer(ConsumerFactory factory) {
    return new Builder(new PlainTarget(Objects.requireNonNull(factory, "factory")));
  }

  /**
   * A kit for a Spring Boot application using the starter: its context must import {@link
   * ExactlyOnceTestConfiguration}. The kit sends to the application's running listener containers
   * (the broker defaults to the context's), and restarts them after a simulated crash.
   */
  public static Builder forApplication(ApplicationContext context) {
    return new Builder(new SpringTarget(Objects.requireNonNull(context, "context")));
  }

  // -- scenarios -------------------------------------------------------------------------------

  ScenarioReport duplicateDelivery() {
    return run(
        "duplicate delivery",
        "each record sent twice back to back, then a third time once the first two were processed",
        "dup",
        ScenarioHooks.Fault.NONE,
        1,
        (report, keys) -> {
          List<String> sent = new ArrayList<>();
          for (String key : keys) {
            sent.add(send(key, payload.apply(key), null));
          }
          for (String key : keys) {
            sent.add(send(key, payload.apply(key), null));
          }
          awaitProcessed(report, sent);
          List<String> again = new ArrayList<>();
          for (String key : keys) {
            again.add(send(key, payload.apply(key), null));
          }
          awaitProcessed(report, again);
        });
  }

  ScenarioReport failureAfterWrites() {
    return run(
        "failure after the handler's writes",
        "each key's first transaction fails after its handler returned (RetryLaterException from"
            + " the hook), so it must roll back; the batch is delivered again and applies",
        "fail",
        ScenarioHooks.Fault.FAIL_AFTER_WRITES,
        1,
        (report, keys) -> {
          List<String> sent = new ArrayList<>();
          for (String key : keys) {
            sent.add(send(key, payload.apply(key), null));
          }
          awaitProcessed(report, sent);
          for (String key : keys) {
            if (!target.hooks().failedKeys().contains(key)) {
              report.problem(
                  "key "
                      + key
                      + ": no failure was injected, its handler never returned (was the record"
                      + " rejected before the handler?)");
            }
          }
        });
  }

  ScenarioReport crashBeforeCommit() {
    return crash(
        "crash before the database commit",
        "the consumer dies after the handler returned, inside the open transaction; fresh"
            + " consumers of the group read the batch again",
        "crash-tx",
        ScenarioHooks.Fault.CRASH_BEFORE_COMMIT);
  }

  ScenarioReport crashAfterCommit() {
    return crash(
        "crash after the database commit, before the offset commit",
        "the consumer dies after its batch committed in PostgreSQL and before Kafka's offsets"
            + " were committed; fresh consumers of the group read the batch again",
        "crash-offset",
        ScenarioHooks.Fault.CRASH_AFTER_COMMIT);
  }

  private ScenarioReport crash(
      String name, String description, String prefix, ScenarioHooks.Fault fault) {
    return run(
        name,
        description,
        prefix,
        fault,
        1,
        (report, keys) -> {
          List<String> sent = new ArrayList<>();
          for (String key : keys) {
            sent.add(send(key, payload.apply(key), null));
          }
          awaitCondition(
              report,
              "a batch of the kit's records reaching the crash point",
              () -> target.hooks().crashes() > 0);
          target.restart();
          awaitProcessed(report, sent);
        });
  }

  ScenarioReport concurrentDuplicates() {
    return run(
        "concurrent duplicates",
        "each key sent once to each partition (at least twice, to at most "
            + RACE_COPIES
            + " partitions), consumed by the group's consumers at once (two for a plain consumer,"
            + " the listener concurrency in Spring); each key's first transaction is held open "
            + RACE_HOLD.toMillis()
            + " ms so the other copies claim while it is uncommitted",
        "race",
        ScenarioHooks.Fault.HOLD_FIRST_TRANSACTION,
        2,
        (report, keys) -> {
          int partitions = producer.partitionsFor(topic).size();
          int members = Math.min(target.raceConsumers(), partitions);
          awaitCondition(
              report,
              members
                  + " consumer(s) of the group sharing the "
                  + partitions
                  + " partition(s) of "
                  + topic,
              () -> GroupProbe.partitionsSpread(kafka, topic, members, patience));
          List<String> sent = new ArrayList<>();
          for (String key : keys) {
            int copies = Math.max(2, Math.min(RACE_COPIES, partitions));
            for (int copy = 0; copy < copies; copy++) {
              sent.add(send(key, payload.apply(key), copy % partitions));
            }
          }
          awaitProcessed(report, sent);
          if (!report.timedOut()) {
            requireRaced(report, keys, partitions, members);
          }
        });
  }

  /**
   * Fails the race scenario that raced nothing: a key whose copies were all taken by one consumer
   * was claimed once and then found committed, which any duplicate delivery already shows.
   */
  private void requireRaced(ScenarioReport report, List<String> keys, int partitions, int members) {
    Set<String> raced = target.hooks().keysTakenByTwoConsumers();
    long exposed = keys.stream().filter(raced::contains).count();
    if (exposed < keys.size()) {
      report.notExercised(
          "the copies of "
              + exposed
              + " of "
              + keys.size()
              + " keys reached two consumers or more; the others were taken by one consumer,"
              + " one copy after another, so no claim met an uncommitted one. The race needs two"
              + " consumers of the group or more on a topic of two partitions or more: "
              + topic
              + " has "
              + partitions
              + " partition(s), the kit could count on "
              + members
              + " consumer(s) holding them (a Spring application sets its listener threads with"
              + " inbox-outbox.consumer.concurrency)");
    }
  }

  ScenarioReport conflictingPayload() {
    return run(
        "same key, another payload",
        "each key applied once, then sent again with another payload: a conflict, dead-lettered"
            + " as CONFLICT and never applied",
        "conflict",
        ScenarioHooks.Fault.NONE,
        1,
        (report, keys) -> {
          List<String> sent = new ArrayList<>();
          for (String key : keys) {
            sent.add(send(key, payload.apply(key), null));
          }
          awaitProcessed(report, sent);
          List<String> conflicting = new ArrayList<>();
          for (String key : keys) {
            conflicting.add(send(key, conflictingPayload.apply(key), null));
          }
          awaitProcessed(report, conflicting);
          Map<String, String> reasons =
              DeadLetterProbe.reasons(kafka, deadLetterTopic, keys, patience);
          for (String key : keys) {
            String reason = reasons.get(key);
            if (!"CONFLICT".equals(reason)) {
              report.problem(
                  "key "
                      + key
                      + ": expected a CONFLICT dead letter on "
                      + deadLetterTopic
                      + ", found "
                      + (reason == null ? "none" : reason));
            }
          }
        });
  }

  // -- machinery -------------------------------------------------------------------------------

  @FunctionalInterface
  private interface Body {
    void run(ScenarioReport report, List<String> keys) throws Exception;
  }

  private synchronized ScenarioReport run(
      String name,
      String description,
      String prefix,
      ScenarioHooks.Fault fault,
      int instances,
      Body body) {
    scenarios++;
    List<String> scenarioKeys = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      scenarioKeys.add(prefix + "-" + run + "-" + scenarios + "-" + i);
    }
    ScenarioReport report = new ScenarioReport(name, description);
    ScenarioHooks hooks = target.hooks();
    target.drainLoopFailures();
    hooks.arm(fault, RACE_HOLD);
    try {
      long suspensionsBefore = target.transactionSuspensions(topic);
      target.start(instances);
      long suspensions;
      try {
        body.run(report, scenarioKeys);
      } finally {
        hooks.disarm();
        suspensions = target.transactionSuspensions(topic) - suspensionsBefore;
        target.stop();
      }
      report.suspensions(suspensions);
      if (!report.timedOut()) {
        for (String key : scenarioKeys) {
          report.effects(key, effects.count(key));
        }
      }
      target
          .drainLoopFailures()
          .forEach(failure -> report.problem("a consumer loop failed: " + failure));
      return report;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(name + ": " + e.getMessage(), e);
    }
  }

  private String send(String key, String value, Integer partition) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, partition, key, value.getBytes(StandardCharsets.UTF_8));
    record.headers().add(keyHeader, key.getBytes(StandardCharsets.UTF_8));
    record.headers().add(ScenarioHooks.TEST_KEY_HEADER, key.getBytes(StandardCharsets.UTF_8));
    headers.forEach(
        (name, text) -> record.headers().add(name, text.getBytes(StandardCharsets.UTF_8)));
    try {
      RecordMetadata stored = producer.send(record).get(patience.toMillis(), TimeUnit.MILLISECONDS);
      return ScenarioHooks.position(stored.topic(), stored.partition(), stored.offset());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to " + topic, e);
    } catch (Exception e) {
      throw new IllegalStateException("the broker did not take a record for " + topic, e);
    }
  }

  private void awaitProcessed(ScenarioReport report, List<String> positions) {
    awaitCondition(
        report,
        positions.size() + " records processed (their batch committed)",
        () -> positions.stream().allMatch(target.hooks()::committed));
  }

  private void awaitCondition(ScenarioReport report, String what, Callable<Boolean> condition) {
    if (report.timedOut()) {
      return;
    }
    try {
      await(what)
          // A simulated crash ends a consumer thread with an error on purpose.
          .dontCatchUncaughtExceptions()
          .atMost(patience)
          .pollInterval(Duration.ofMillis(50))
          .until(condition);
    } catch (ConditionTimeoutException e) {
      report.timeout(
          "waited "
              + patience.toSeconds()
              + " s for "
              + what
              + " in vain; check that the consumer reads "
              + topic
              + ", that the kit's hooks are set on its processing, and its log for failures");
    }
  }

  static String withConflictField(String json) {
    String trimmed = json.strip();
    if (!trimmed.startsWith("{")) {
      throw new IllegalArgumentException(
          "the payload is not a JSON object: set conflictingPayload(...) for the conflict scenario");
    }
    String rest = trimmed.substring(1).strip();
    return "{\"ioxTestConflict\":true" + (rest.startsWith("}") ? "" : ",") + rest;
  }

  /** Stops the consumers the kit started and closes its producer. */
  @Override
  public void close() {
    try {
      target.close();
    } finally {
      producer.close(Duration.ofSeconds(5));
    }
  }

  /** Builds an {@link ExactlyOnceKit}: topic, payloads and effects are required. */
  public static final class Builder {
    private final Target target;
    private final Map<String, Object> kafka = new HashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String topic;
    private String deadLetterTopic;
    private Function<String, String> payload;
    private Function<String, String> conflictingPayload;
    private Effects effects;
    private String keyHeader = "Idempotency-Key";
    private int keys = 3;
    private Duration patience = Duration.ofSeconds(60);

    private Builder(Target target) {
      this.target = target;
    }

    /**
     * Kafka client properties for the kit's producer, admin client and dead-letter reader: at least
     * {@code bootstrap.servers} for a plain consumer (an application context's is the default),
     * plus security settings if the broker needs them.
     */
    public Builder kafka(Map<String, ?> properties) {
      kafka.putAll(properties);
      return this;
    }

    /** The topic the consumer under test reads. Required. */
    public Builder topic(String topic) {
      this.topic = topic;
      return this;
    }

    /** Where the consumer's dead letters go; default the topic + {@code .DLT}. */
    public Builder deadLetterTopic(String deadLetterTopic) {
      this.deadLetterTopic = deadLetterTopic;
      return this;
    }

    /** The JSON payload of the record for a key (the handler must apply it). Required. */
    public Builder payload(Function<String, String> payload) {
      this.payload = payload;
      return this;
    }

    /**
     * Another payload for the same key, for the conflict scenario; default: the payload with a
     * field {@code "ioxTestConflict": true} added (the payload must then be a JSON object).
     */
    public Builder conflictingPayload(Function<String, String> conflictingPayload) {
      this.conflictingPayload = conflictingPayload;
      return this;
    }

    /** The application's own count of one key's effects. Required. */
    public Builder effects(Effects effects) {
      this.effects = effects;
      return this;
    }

    /**
     * The header the key is sent in; default {@code Idempotency-Key}, the consumer's default key
     * extractor. A consumer that takes the key from the payload gets it from {@link #payload}.
     */
    public Builder keyHeader(String keyHeader) {
      this.keyHeader = Objects.requireNonNull(keyHeader, "keyHeader");
      return this;
    }

    /** A header sent on every record, e.g. {@code type} for a handler that dispatches on it. */
    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Keys per scenario; default 3. */
    public Builder keysPerScenario(int keys) {
      if (keys < 1) {
        throw new IllegalArgumentException("at least one key per scenario");
      }
      this.keys = keys;
      return this;
    }

    /** How long each wait of a scenario may take; default 60 s. */
    public Builder patience(Duration patience) {
      this.patience = Objects.requireNonNull(patience, "patience");
      return this;
    }

    public ExactlyOnceKit build() {
      return new ExactlyOnceKit(this);
    }
  }
}
