package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Target;
import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Retention under load: the inbox consumer's throughput while a cleanup deletes {@code expiredKeys}
 * expired keys, against the same consumer over the same inbox without a cleanup. Both rates are
 * taken over a window after the consumer's start-up: the baseline from its first {@value
 * #WARM_UP_RECORDS} records to its last, the other while the cleanup runs (started once the
 * consumer is warm) and the consumer still has records. Then, if asked, a {@link SustainedIntake}.
 * Never part of the tests' pass/fail.
 */
final class RetentionBench {

  /**
   * The sustained intake's settings.
   *
   * @param connections claiming connections, each taking an equal part of the rate
   * @param interval the cleanup schedule's interval
   */
  record Intake(int keysPerSecond, int connections, Duration duration, Duration interval) {}

  static final double TARGET_RATIO_UNDER_CLEANUP = 0.9;

  private static final int WARM_UP_RECORDS = 2_000;
  private static final Duration WINDOW = Duration.ofSeconds(3);

  private static final String EXPIRED_KEYS =
      """
      INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                         outcome_body, completed_at, outcome_expires_at, expires_at)
      SELECT 'bench-expired', uuid_in(md5(random()::text || g)::cstring)::text,
             md5(g::text) || md5(g::text), 'COMPLETED', 'SUCCESS', '{"orderId":1}'::jsonb,
             now() - interval '8 days', now() - interval '7 days', now() - interval '1 day'
        FROM generate_series(1, ?) g
      """;

  private final DevStack stack;
  private final long expiredKeys;
  private final Duration pause;
  private final int messages;
  private final int repeat;
  private final Optional<Intake> intake;
  private final BenchFigures figures;
  private final PrintStream out;

  /**
   * @param pause the cleanup's pause between batches beside the consumer
   * @param messages records per consumer run; enough that the consumer outlasts the cleanup
   * @param intake the sustained intake; empty skips it
   */
  RetentionBench(
      DevStack stack,
      long expiredKeys,
      Duration pause,
      int messages,
      int repeat,
      Optional<Intake> intake,
      BenchFigures figures,
      PrintStream out) {
    this.stack = stack;
    this.expiredKeys = expiredKeys;
    this.pause = pause;
    this.messages = messages;
    this.repeat = repeat;
    this.intake = intake;
    this.figures = figures;
    this.out = out;
  }

  void run() throws Exception {
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    if (expiredKeys > 0) {
      cleanupBesideAConsumer();
    }
    if (intake.isPresent()) {
      new SustainedIntake(stack, intake.get(), figures, out).run();
    }
    MachineLoad.since(cpuAtStart).ifPresent(load -> figures.note(load.describe()));
  }

  private void cleanupBesideAConsumer() throws Exception {
    out.printf(
        "%nRetention beside a consumer: %,d expired keys, pause between batches %d ms, cleanup"
            + " windows of %d s alternating with windows without, %d runs%n",
        expiredKeys, pause.toMillis(), WINDOW.toSeconds(), repeat);
    List<Double> alone = new ArrayList<>();
    List<Double> underCleanup = new ArrayList<>();
    List<Double> cleanupRates = new ArrayList<>();
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      execute(db, "CREATE TABLE effects (key text NOT NULL, amount int NOT NULL)");
      for (int run = 1; run <= repeat; run++) {
        long started = System.nanoTime();
        fillExpired(db);
        out.printf(
            "run %d: %,d expired keys filled and analysed in %.1f s%n",
            run, expiredKeys, (System.nanoTime() - started) / 1e9);
        Windows windows = consumeBesideTheCleanup(db);
        alone.add(windows.without.rate());
        underCleanup.add(windows.with.rate());
        cleanupRates.add(windows.deleted / windows.with.seconds());
        out.printf(
            "run %d: consumer %.0f msg/s without, %.0f msg/s with the cleanup (%.2f);"
                + " cleanup deleted %,d keys in %.1f s (%.0f keys/s)%s%n",
            run,
            windows.without.rate(),
            windows.with.rate(),
            windows.with.rate() / windows.without.rate(),
            windows.deleted,
            windows.with.seconds(),
            windows.deleted / windows.with.seconds(),
            windows.deleted < expiredKeys
                ? "; the consumer ran out of records first, raise --retention-messages"
                : "");
      }
    }
    BenchFigures.Figure base =
        figures.add(
            "retention",
            "inbox consumer, windows without",
            "msg/s",
            Better.HIGHER,
            alone,
            Optional.empty(),
            Optional.empty());
    figures.add(
        "retention",
        String.format(
            "inbox consumer, windows of a cleanup of %,d expired keys (pause %d ms)",
            expiredKeys, pause.toMillis()),
        "msg/s",
        Better.HIGHER,
        underCleanup,
        Optional.of(base),
        Optional.of(Target.ratioAtLeast(TARGET_RATIO_UNDER_CLEANUP)));
    figures.add(
        "retention",
        "cleanup beside the consumer",
        "keys/s",
        Better.HIGHER,
        cleanupRates,
        Optional.empty(),
        Optional.empty());
  }

  private void fillExpired(Database db) throws SQLException {
    try (Connection connection = db.connect()) {
      long chunk = 500_000;
      for (long done = 0; done < expiredKeys; done += chunk) {
        try (PreparedStatement insert = connection.prepareStatement(EXPIRED_KEYS)) {
          insert.setLong(1, Math.min(chunk, expiredKeys - done));
          insert.executeUpdate();
        }
      }
      try (Statement statement = connection.createStatement()) {
        statement.execute("VACUUM ANALYZE inbox");
      }
    }
  }

  /**
   * One consumer over fresh records; once it is warm, windows without cleanup alternate with
   * windows in which a cleanup run (its budget the window) deletes expired keys, until the cleanup
   * has finished or the consumer has run out of records. Alternating within one consumer run keeps
   * the machine's other load, which drifts over minutes, out of the comparison.
   */
  private Windows consumeBesideTheCleanup(Database db) throws Exception {
    String bootstrap = stack.kafka().bootstrapServers();
    String topic = "bench-retention-" + UUID.randomUUID().toString().substring(0, 8);
    produce(bootstrap, topic);
    RetentionCleaner cleaner =
        RetentionCleaner.builder(db.dataSource())
            .pauseBetweenBatches(pause)
            .runBudget(WINDOW)
            .build();
    Windows windows = new Windows();
    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder("bench-retention")
                    .dataSource(db.dataSource())
                    .handler(
                        (message, context) -> {
                          try (PreparedStatement insert =
                              context
                                  .connection()
                                  .prepareStatement(
                                      "INSERT INTO effects (key, amount) VALUES (?, 1)")) {
                            insert.setString(1, message.idempotencyKey().value());
                            insert.executeUpdate();
                          }
                          return Outcome.success();
                        }))
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    "bench-retention-" + UUID.randomUUID()))
            .topics(topic)
            .build()
            .start()) {
      LongSupplier records = () -> consumer.stats().snapshot().records();
      ConsumerBench.awaitProgress(records, WARM_UP_RECORDS);
      boolean cleaned = false;
      long lastPair = 0;
      // Stop while twice the last pair's records are left, so no window finds the consumer idle.
      while (!cleaned && messages - records.getAsLong() > 2 * lastPair + WARM_UP_RECORDS) {
        long before = records.getAsLong();
        windows.without.measure(records, () -> sleep(WINDOW));
        RetentionCleaner.Report[] report = new RetentionCleaner.Report[1];
        windows.with.measure(records, () -> report[0] = cleaner.run());
        windows.deleted += report[0].keysDeleted();
        cleaned = report[0].complete();
        lastPair = records.getAsLong() - before;
      }
    }
    return windows;
  }

  /** The consumer's records and time in the windows with and without a cleanup. */
  private static final class Windows {
    final Window without = new Window();
    final Window with = new Window();
    long deleted;
  }

  private static final class Window {
    private long records;
    private long nanos;

    void measure(LongSupplier consumed, Runnable during) {
      long fromRecords = consumed.getAsLong();
      long from = System.nanoTime();
      during.run();
      nanos += System.nanoTime() - from;
      records += consumed.getAsLong() - fromRecords;
    }

    double seconds() {
      return nanos / 1e9;
    }

    double rate() {
      return records / seconds();
    }
  }

  /**
   * Sends {@link #messages} records with distinct keys and waits for every acknowledgement: a lost
   * record would leave the consumer waiting for it. Not idempotent: on the loaded embedded broker a
   * retried idempotent batch was refused as out of sequence and lost, while a repeat is harmless
   * here (the inbox absorbs it).
   */
  private void produce(String bootstrap, String topic) throws Exception {
    List<Future<RecordMetadata>> sent = new ArrayList<>(messages);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "linger.ms",
                "20",
                "enable.idempotence",
                "false",
                "acks",
                "all"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < messages; i++) {
        String key = UUID.randomUUID().toString();
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, key, "{\"amount\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
        sent.add(producer.send(record));
      }
      producer.flush();
      for (Future<RecordMetadata> acknowledged : sent) {
        acknowledged.get();
      }
    }
  }

  static void sleep(Duration duration) {
    if (duration.isNegative() || duration.isZero()) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("retention benchmark interrupted", e);
    }
  }

  private static void execute(Database db, String sql) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
