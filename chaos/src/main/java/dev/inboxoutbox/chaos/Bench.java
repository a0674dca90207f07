package dev.inboxoutbox.chaos;

import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Throughput of three consumers over the same records on the same stack (the inbox, no inbox, and a
 * naive read-then-write check in a transaction per record), then relay commit-to-Kafka latency at a
 * fixed rate. Prints figures and ratios; never part of the tests' pass/fail.
 */
final class Bench {

  private final int messages;
  private final int relayEvents;
  private final int relayRate;
  private final SqlOptions sql;
  private final Duration relayPollInterval;
  private final int repeat;
  private final boolean relayOnly;
  private final RetentionOptions retention;
  private final PrintStream out;

  /** The SQL micro-benchmark's options; {@code only} skips the consumer and relay figures. */
  record SqlOptions(int batchesPerRun, long inboxRows, OptionalInt fillfactor, boolean only) {}

  /** The retention benchmark's options: {@code only} runs nothing else, {@code skip} not it. */
  record RetentionOptions(
      long expiredKeys,
      Duration pause,
      int messages,
      Optional<RetentionBench.Intake> intake,
      boolean only,
      boolean skip) {}

  Bench(
      int messages,
      int relayEvents,
      int relayRate,
      SqlOptions sql,
      Duration relayPollInterval,
      int repeat,
      boolean relayOnly,
      RetentionOptions retention,
      PrintStream out) {
    this.messages = messages;
    this.relayEvents = relayEvents;
    this.relayRate = relayRate;
    this.sql = sql;
    this.relayPollInterval = relayPollInterval;
    this.repeat = repeat;
    this.relayOnly = relayOnly;
    this.retention = retention;
    this.out = out;
  }

  void run() throws Exception {
    try (DevStack stack = DevStack.start(DevStackSettings.fromEnvironment())) {
      if (retention.only()) {
        retention(stack);
        return;
      }
      if (!relayOnly) {
        new InboxSqlBench(stack, sql.batchesPerRun(), sql.inboxRows(), sql.fillfactor(), out).run();
      }
      if (!sql.only()) {
        consumersAndRelay(stack);
      }
      if (!retention.skip() && !sql.only() && !relayOnly) {
        retention(stack);
      }
    }
  }

  private void retention(DevStack stack) throws Exception {
    BenchFigures figures = new BenchFigures();
    new RetentionBench(
            stack,
            retention.expiredKeys(),
            retention.pause(),
            retention.messages(),
            repeat,
            retention.intake(),
            figures,
            out)
        .run();
    out.println();
    figures.printTable(out);
  }

  private void consumersAndRelay(DevStack stack) throws Exception {
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      execute(
          db,
          "CREATE TABLE effects (key text NOT NULL, amount int NOT NULL)",
          "CREATE TABLE naive_seen (key text PRIMARY KEY)");
      String bootstrap = stack.kafka().bootstrapServers();
      if (relayOnly) {
        new RelayBench(db, bootstrap, relayEvents, relayRate, relayPollInterval, repeat, out).run();
        return;
      }
      String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
      int distinct = produce(bootstrap, topic);
      out.printf("%d records (%d distinct keys, 10%% repeats) on %s%n", messages, distinct, topic);

      double withInbox = consume(bootstrap, topic, db, distinct);
      execute(db, "TRUNCATE effects");
      double withoutInbox = plain(bootstrap, topic, db, distinct);
      execute(db, "TRUNCATE effects");
      double naive = naive(bootstrap, topic, db);
      out.println();
      out.printf("%-52s %10s %8s%n", "consumer", "msg/s", "ratio");
      out.printf(
          "%-52s %10.0f %8.2f%n", "no inbox (baseline: same state, no dedup)", withoutInbox, 1.0);
      out.printf(
          "%-52s %10.0f %8.2f%n",
          "inbox: batch claim in one transaction per poll", withInbox, withInbox / withoutInbox);
      out.printf(
          "%-52s %10.0f %8.2f%n",
          "naive: read-then-write check, transaction per record", naive, naive / withoutInbox);
      new RelayBench(db, bootstrap, relayEvents, relayRate, relayPollInterval, repeat, out).run();
    }
  }

  private int produce(String bootstrap, String topic) {
    Random random = new Random(1);
    List<String> keys = new ArrayList<>();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "linger.ms", "20"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < messages; i++) {
        String key =
            !keys.isEmpty() && random.nextInt(10) == 0
                ? keys.get(random.nextInt(keys.size()))
                : UUID.randomUUID().toString();
        if (!keys.contains(key) && keys.size() < 1_000_000) {
          keys.add(key);
        }
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, key, "{\"amount\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
        producer.send(record);
      }
    }
    return new java.util.HashSet<>(keys).size();
  }

  private double consume(String bootstrap, String topic, Database db, int distinct)
      throws Exception {
    MessageHandler handler =
        (message, context) -> {
          try (PreparedStatement insert =
              context
                  .connection()
                  .prepareStatement("INSERT INTO effects (key, amount) VALUES (?, 1)")) {
            insert.setString(1, message.idempotencyKey().value());
            insert.executeUpdate();
          }
          return Outcome.success();
        };
    long started = System.nanoTime();
    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafka(
                Map.of(
                    "bootstrap.servers", bootstrap, "group.id", "bench-inbox-" + UUID.randomUUID()))
            .topics(topic)
            .dataSource(db.dataSource())
            .settings(ConsumerSettings.builder("bench-inbox").build())
            .handler(handler)
            .build()
            .start()) {
      await(() -> consumer.stats().snapshot().records(), messages);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long effects = count(db, "SELECT count(*) FROM effects");
    out.printf(
        "%s: %d records in %.1f s, %d effects (distinct keys %d)%n",
        "inbox", messages, seconds, effects, distinct);
    return messages / seconds;
  }

  /**
   * The baseline: the same effect per record and the same shape (one transaction per poll, offsets
   * committed after it), without an inbox, so every repeat applies again.
   */
  private double plain(String bootstrap, String topic, Database db, int distinct) throws Exception {
    long started = System.nanoTime();
    int done = 0;
    try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    "bench-plain-" + UUID.randomUUID(),
                    "auto.offset.reset",
                    "earliest",
                    "enable.auto.commit",
                    "false",
                    "max.poll.records",
                    "500"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        Connection connection = db.connect()) {
      connection.setAutoCommit(false);
      consumer.subscribe(List.of(topic));
      while (done < messages) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        try (PreparedStatement effect =
            connection.prepareStatement(
                """
                INSERT INTO effects (key, amount) VALUES (?, 1)
                """)) {
          for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
            Header key = record.headers().lastHeader("Idempotency-Key");
            effect.setString(1, new String(key.value(), StandardCharsets.UTF_8));
            effect.addBatch();
            offsets.put(
                new TopicPartition(record.topic(), record.partition()),
                new OffsetAndMetadata(record.offset() + 1));
            done++;
          }
          effect.executeBatch();
        }
        connection.commit();
        if (!offsets.isEmpty()) {
          consumer.commitSync(offsets);
        }
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long effects = count(db, "SELECT count(*) FROM effects");
    out.printf(
        "%s: %d records in %.1f s, %d effects (distinct keys %d)%n",
        "no inbox", messages, seconds, effects, distinct);
    return messages / seconds;
  }

  private double naive(String bootstrap, String topic, Database db) throws Exception {
    long started = System.nanoTime();
    int done = 0;
    try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    "bench-naive-" + UUID.randomUUID(),
                    "auto.offset.reset",
                    "earliest",
                    "enable.auto.commit",
                    "false"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        Connection connection = db.connect()) {
      consumer.subscribe(List.of(topic));
      while (done < messages) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          connection.setAutoCommit(false);
          boolean seen;
          // The pattern the brief warns about: check, then write. Correct only with the primary key
          // behind it.
          try (PreparedStatement check =
              connection.prepareStatement("SELECT 1 FROM naive_seen WHERE key = ?")) {
            check.setString(1, record.key());
            try (ResultSet row = check.executeQuery()) {
              seen = row.next();
            }
          }
          if (!seen) {
            try (PreparedStatement mark =
                    connection.prepareStatement("INSERT INTO naive_seen (key) VALUES (?)");
                PreparedStatement effect =
                    connection.prepareStatement(
                        "INSERT INTO effects (key, amount) VALUES (?, 1)")) {
              mark.setString(1, record.key());
              mark.executeUpdate();
              effect.setString(1, record.key());
              effect.executeUpdate();
            }
          }
          connection.commit();
          consumer.commitSync(
              Map.of(
                  new TopicPartition(record.topic(), record.partition()),
                  new OffsetAndMetadata(record.offset() + 1)));
          done++;
        }
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    out.printf("naive: %d records in %.1f s%n", messages, seconds);
    return messages / seconds;
  }

  private static void await(LongSupplier progress, long target) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (progress.getAsLong() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "benchmark consumer stalled at " + progress.getAsLong() + " of " + target);
      }
      Thread.sleep(20);
    }
  }

  private static void execute(Database db, String... statements) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private static long count(Database db, String sql) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
