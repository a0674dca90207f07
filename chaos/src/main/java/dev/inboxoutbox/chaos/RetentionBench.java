package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.BenchFigures.Better;
import dev.inboxoutbox.chaos.BenchFigures.Target;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
    cpuAtStart.ifPresent(
        start ->
            MachineLoad.Sample.read()
                .ifPresent(
                    end ->
                        figures.note(
                            MachineLoad.between(
                                    start, end, Runtime.getRuntime().availableProcessors())
                                .describe())));
  }

  private void cleanupBesideAConsumer() throws Exception {
    out.printf(
        "%nRetention beside a consumer: %,d expired keys, pause between batches %d ms,"
            + " %,d records per consumer run, %d runs%n",
        expiredKeys, pause.toMillis(), messages, repeat);
    List<Double> alone = new ArrayList<>();
    List<Double> underCleanup = new ArrayList<>();
    List<Double> cleanupRates = new ArrayList<>();
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      execute(db, "CREATE TABLE effects (key text NOT NULL, amount int NOT NULL)");
      String bootstrap = stack.kafka().bootstrapServers();
      for (int run = 1; run <= repeat; run++) {
        long started = System.nanoTime();
        fillExpired(db);
        out.printf(
            "run %d: %,d expired keys filled and analysed in %.1f s%n",
            run, expiredKeys, (System.nanoTime() - started) / 1e9);
        double baseline = consume(bootstrap, db, Optional.empty(), "alone");
        RetentionCleaner cleaner =
            RetentionCleaner.builder(db.dataSource()).pauseBetweenBatches(pause).build();
        CleanupWindow window = new CleanupWindow(cleaner);
        double withCleanup = consume(bootstrap, db, Optional.of(window), "beside the cleanup");
        alone.add(baseline);
        underCleanup.add(withCleanup);
        cleanupRates.add(window.deleted / window.seconds());
        out.printf(
            "run %d: cleanup deleted %,d keys in %.1f s (%.0f keys/s) in %d runs;"
                + " the consumer ran beside it for %.0f%% of that time%n",
            run,
            window.deleted,
            window.seconds(),
            window.deleted / window.seconds(),
            window.runs,
            100 * window.overlap);
      }
    }
    BenchFigures.Figure base =
        figures.add(
            "retention",
            "inbox consumer, no cleanup",
            "msg/s",
            Better.HIGHER,
            alone,
            Optional.empty(),
            Optional.empty());
    figures.add(
        "retention",
        String.format(
            "inbox consumer while a cleanup deletes %,d expired keys, pause %d ms",
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
   * Consumes {@link #messages} fresh records and returns the rate over the measured window: with a
   * cleanup, the time the cleanup ran (started once the consumer is warm); without, from the
   * warm-up to the last record.
   */
  private double consume(
      String bootstrap, Database db, Optional<CleanupWindow> cleanup, String label)
      throws Exception {
    String topic = "bench-retention-" + UUID.randomUUID().toString().substring(0, 8);
    produce(bootstrap, topic);
    try (IdempotentConsumer consumer =
        IdempotentConsumer.builder()
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    bootstrap,
                    "group.id",
                    "bench-retention-" + UUID.randomUUID()))
            .topics(topic)
            .dataSource(db.dataSource())
            .settings(ConsumerSettings.builder("bench-retention").build())
            .handler(
                (message, context) -> {
                  try (PreparedStatement insert =
                      context
                          .connection()
                          .prepareStatement("INSERT INTO effects (key, amount) VALUES (?, 1)")) {
                    insert.setString(1, message.idempotencyKey().value());
                    insert.executeUpdate();
                  }
                  return Outcome.success();
                })
            .build()
            .start()) {
      LongSupplier records = () -> consumer.stats().snapshot().records();
      await(records, WARM_UP_RECORDS);
      long fromRecords = records.getAsLong();
      long from = System.nanoTime();
      if (cleanup.isEmpty()) {
        await(records, messages);
        double rate = (records.getAsLong() - fromRecords) / ((System.nanoTime() - from) / 1e9);
        out.printf("%s: %.0f msg/s after the warm-up%n", label, rate);
        return rate;
      }
      CleanupWindow window = cleanup.get();
      window.runBeside(records, messages);
      double rate = (window.recordsAtOverlapEnd - fromRecords) / window.overlapSeconds();
      out.printf("%s: %.0f msg/s while the cleanup ran%n", label, rate);
      await(records, messages);
      return rate;
    }
  }

  /**
   * Runs cleanups back to back until one finishes its work, as a behind schedule does, and notes
   * how far the consumer got meanwhile: the overlap ends with the cleanup or with the consumer's
   * last record, whichever comes first.
   */
  private static final class CleanupWindow {
    private final RetentionCleaner cleaner;
    private long started;
    private long ended;
    private long deleted;
    private int runs;
    private long recordsAtOverlapEnd;
    private long overlapEnd;
    private double overlap;

    CleanupWindow(RetentionCleaner cleaner) {
      this.cleaner = cleaner;
    }

    void runBeside(LongSupplier records, long lastRecord) throws InterruptedException {
      AtomicLong consumerDoneAt = new AtomicLong();
      AtomicBoolean cleaning = new AtomicBoolean(true);
      Thread watcher =
          new Thread(
              () -> {
                while (cleaning.get() && records.getAsLong() < lastRecord) {
                  sleep(Duration.ofMillis(5));
                }
                consumerDoneAt.compareAndSet(0, System.nanoTime());
              },
              "bench-consumer-watcher");
      watcher.setDaemon(true);
      watcher.start();
      started = System.nanoTime();
      RetentionCleaner.Report report;
      do {
        report = cleaner.run();
        deleted += report.keysDeleted();
        runs++;
      } while (!report.complete());
      ended = System.nanoTime();
      long recordsAtEnd = Math.min(records.getAsLong(), lastRecord);
      cleaning.set(false);
      watcher.join();
      boolean consumerFinishedFirst = consumerDoneAt.get() < ended;
      overlapEnd = consumerFinishedFirst ? consumerDoneAt.get() : ended;
      recordsAtOverlapEnd = consumerFinishedFirst ? lastRecord : recordsAtEnd;
      overlap = (overlapEnd - started) / (double) (ended - started);
    }

    double seconds() {
      return (ended - started) / 1e9;
    }

    double overlapSeconds() {
      return (overlapEnd - started) / 1e9;
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

  private static void await(LongSupplier progress, long target) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (progress.getAsLong() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "benchmark consumer stalled at " + progress.getAsLong() + " of " + target);
      }
      Thread.sleep(5);
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
