package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.BenchFigures.Better;
import dev.inboxoutbox.chaos.BenchFigures.Target;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.ClaimRequest;
import dev.inboxoutbox.inbox.Inbox.ClaimResult;
import dev.inboxoutbox.inbox.Inbox.Completion;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.retention.RetentionCleaner;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Retention under load, two figures:
 *
 * <ol>
 *   <li><b>Cleanup beside a consumer:</b> the inbox consumer's throughput while a cleanup deletes
 *       {@code expiredKeys} expired keys, against the same consumer over the same inbox without a
 *       cleanup. Both rates are taken over a window after the consumer's start-up: the baseline
 *       from its first {@value #WARM_UP_RECORDS} records to its last, the other exactly while the
 *       cleanup runs.
 *   <li><b>Sustained intake:</b> claims and completions at a fixed rate of distinct keys with a
 *       one-second key TTL, a cleanup schedule beside them; prints the inbox size every second and
 *       compares the inbox size and the claim rate of the first and the last quarter after a
 *       warm-up.
 * </ol>
 *
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
  static final double TARGET_INTAKE = 10_000;

  /** Flat: the inbox grows by at most this fraction of the intake rate. */
  private static final double FLAT = 0.02;

  private static final int WARM_UP_RECORDS = 2_000;
  private static final int BATCH = 200;
  private static final Duration KEY_TTL = Duration.ofSeconds(1);
  private static final Scope INTAKE_SCOPE = Scope.of("bench-intake");

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
    if (expiredKeys > 0) {
      cleanupBesideAConsumer();
    }
    if (intake.isPresent()) {
      sustainedIntake(intake.get());
    }
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

  private void produce(String bootstrap, String topic) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap, "linger.ms", "20"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int i = 0; i < messages; i++) {
        String key = UUID.randomUUID().toString();
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, key, "{\"amount\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
        producer.send(record);
      }
    }
  }

  private void sustainedIntake(Intake settings) throws Exception {
    out.printf(
        "%nSustained intake: %,d distinct keys/s for %s, key TTL %s, cleanup every %s"
            + " (default batch size and run budget)%n",
        settings.keysPerSecond(), settings.duration(), KEY_TTL, settings.interval());
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      AtomicLong claimed = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      RetentionCleaner cleaner = RetentionCleaner.builder(db.dataSource()).build();
      ExecutorService intakeThreads = Executors.newFixedThreadPool(settings.connections());
      List<long[]> samples = new ArrayList<>(); // seconds, inbox rows, keys claimed so far
      try (RetentionCleaner.Schedule schedule = cleaner.schedule(settings.interval());
          Connection sampler = db.connect()) {
        List<Future<Void>> claiming = new ArrayList<>();
        for (int i = 0; i < settings.connections(); i++) {
          claiming.add(
              intakeThreads.submit(
                  new IntakeLoad(
                      db,
                      (double) settings.keysPerSecond() / settings.connections(),
                      claimed,
                      stop)));
        }
        long started = System.nanoTime();
        out.printf("%6s %12s %12s%n", "second", "inbox rows", "claims/s");
        for (int second = 1; second <= settings.duration().toSeconds(); second++) {
          sleep(Duration.ofNanos(started + second * 1_000_000_000L - System.nanoTime()));
          for (Future<Void> connection : claiming) {
            if (connection.isDone()) {
              connection.get(); // an intake failed: its exception ends the bench
            }
          }
          long claimedSoFar = claimed.get();
          long rows = count(sampler, "SELECT count(*) FROM inbox");
          long previous = samples.isEmpty() ? 0 : samples.get(samples.size() - 1)[2];
          samples.add(new long[] {second, rows, claimedSoFar});
          out.printf("%6d %12d %12d%n", second, rows, claimedSoFar - previous);
        }
        stop.set(true);
        for (Future<Void> connection : claiming) {
          connection.get(30, TimeUnit.SECONDS);
        }
        out.printf(
            "cleanup: %d runs (%d failed) during the intake%n",
            schedule.runs(), schedule.failures());
      } finally {
        stop.set(true);
        intakeThreads.shutdownNow();
      }
      intakeFigures(settings, samples);
    }
  }

  /**
   * The intake achieved over the whole run, then the first and last quarter of the run after a
   * warm-up of a few TTLs and intervals (while the inbox fills to its steady size), and the inbox
   * size's trend over that time.
   */
  private void intakeFigures(Intake settings, List<long[]> samples) {
    long warmUp = 3 + 3 * Math.max(KEY_TTL.toSeconds(), settings.interval().toSeconds());
    List<long[]> steady = samples.stream().filter(s -> s[0] > warmUp).toList();
    if (steady.size() < 8) {
      out.printf(
          "intake: run too short for figures after a %d s warm-up; use a longer"
              + " --retention-intake-duration%n",
          warmUp);
      return;
    }
    int quarter = steady.size() / 4;
    List<long[]> first = steady.subList(0, quarter);
    List<long[]> last = steady.subList(steady.size() - quarter, steady.size());
    long[] end = samples.get(samples.size() - 1);
    figures.add(
        "retention",
        String.format(
            "intake of distinct keys over %d s, key TTL %d s", end[0], KEY_TTL.toSeconds()),
        "keys/s",
        Better.HIGHER,
        List.of((double) end[2] / end[0]),
        Optional.empty(),
        Optional.of(Target.atLeast(TARGET_INTAKE)));
    BenchFigures.Figure firstRate =
        figures.add(
            "retention",
            "claim rate, first quarter",
            "keys/s",
            Better.HIGHER,
            perSecond(samples, first),
            Optional.empty(),
            Optional.empty());
    figures.add(
        "retention",
        "claim rate, last quarter",
        "keys/s",
        Better.HIGHER,
        perSecond(samples, last),
        Optional.of(firstRate),
        Optional.of(Target.ratioAtLeast(0.9)));
    figures.add(
        "retention",
        "inbox rows, first quarter",
        "rows",
        Better.LOWER,
        first.stream().map(s -> (double) s[1]).toList(),
        Optional.empty(),
        Optional.empty());
    figures.add(
        "retention",
        "inbox rows, last quarter",
        "rows",
        Better.LOWER,
        last.stream().map(s -> (double) s[1]).toList(),
        Optional.empty(),
        Optional.empty());
    // Without cleanup the inbox would grow by the whole intake rate; flat means a trend near zero
    // beside the ups and downs of each run.
    double intakeRate = (double) end[2] / end[0];
    figures.add(
        "retention",
        "inbox growth after the warm-up (least-squares slope)",
        "rows/s",
        Better.LOWER,
        List.of(slope(steady)),
        Optional.empty(),
        Optional.of(Target.atMost(FLAT * intakeRate)));
  }

  /** Rows per second of the inbox size's least-squares line over time. */
  private static double slope(List<long[]> samples) {
    double meanT = samples.stream().mapToDouble(s -> s[0]).average().orElseThrow();
    double meanRows = samples.stream().mapToDouble(s -> s[1]).average().orElseThrow();
    double covariance = 0;
    double variance = 0;
    for (long[] sample : samples) {
      covariance += (sample[0] - meanT) * (sample[1] - meanRows);
      variance += (sample[0] - meanT) * (sample[0] - meanT);
    }
    return covariance / variance;
  }

  /** Keys claimed in each second of {@code window}. */
  private static List<Double> perSecond(List<long[]> samples, List<long[]> window) {
    List<Double> rates = new ArrayList<>();
    for (long[] sample : window) {
      int index = samples.indexOf(sample);
      rates.add((double) (sample[2] - samples.get(index - 1)[2]));
    }
    return rates;
  }

  /**
   * Claims and completes distinct keys in batches of {@value #BATCH}, one transaction each, paced
   * to the rate; a batch that falls behind is sent at once, so the rate achieved shows.
   */
  private static final class IntakeLoad implements Callable<Void> {
    private final Database db;
    private final double keysPerSecond;
    private final AtomicLong claimed;
    private final AtomicBoolean stop;
    private final Inbox inbox =
        Inbox.builder().retention(Inbox.Retention.of(KEY_TTL, KEY_TTL)).build();

    IntakeLoad(Database db, double keysPerSecond, AtomicLong claimed, AtomicBoolean stop) {
      this.db = db;
      this.keysPerSecond = keysPerSecond;
      this.claimed = claimed;
      this.stop = stop;
    }

    @Override
    public Void call() throws SQLException {
      byte[] body = "{\"amount\":1}".getBytes(StandardCharsets.UTF_8);
      long nanosPerBatch = (long) (1e9 * BATCH / keysPerSecond);
      try (Connection connection = db.connect()) {
        connection.setAutoCommit(false);
        long started = System.nanoTime();
        for (long batch = 0; !stop.get(); batch++) {
          sleep(Duration.ofNanos(started + batch * nanosPerBatch - System.nanoTime()));
          List<ClaimRequest> requests = new ArrayList<>(BATCH);
          for (int i = 0; i < BATCH; i++) {
            requests.add(
                ClaimRequest.ofBytes(
                    INTAKE_SCOPE, IdempotencyKey.of(UUID.randomUUID().toString()), body));
          }
          List<ClaimResult> claims = inbox.claimAll(connection, requests);
          inbox.completeAll(
              connection,
              claims.stream()
                  .map(claim -> Completion.of((ClaimResult.New) claim, Outcome.success()))
                  .toList());
          connection.commit();
          claimed.addAndGet(BATCH);
        }
      }
      return null;
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

  private static void sleep(Duration duration) {
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

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
