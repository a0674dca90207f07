package dev.inboxoutbox.benchmarks;

import static dev.inboxoutbox.benchmarks.RetentionBench.sleep;

import dev.inboxoutbox.benchmarks.RetentionBench.Intake;
import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Target;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.Completion;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Retention under a sustained intake: claims and completions of distinct keys at a fixed rate with
 * a one-second key TTL, on several connections, with a cleanup schedule beside them. Prints the
 * inbox size and the claims of every second, then the intake achieved, the claim rate of the first
 * and the last quarter after a warm-up, and the inbox size's trend. Never part of the tests'
 * pass/fail.
 */
final class SustainedIntake {

  static final double TARGET_INTAKE = 10_000;

  /** Flat: the inbox grows by at most this fraction of the intake rate. */
  private static final double FLAT = 0.02;

  private static final int BATCH = 200;
  private static final Duration KEY_TTL = Duration.ofSeconds(1);
  private static final Scope INTAKE_SCOPE = Scope.of("bench-intake");

  private final DevStack stack;
  private final Intake settings;
  private final BenchFigures figures;
  private final PrintStream out;

  SustainedIntake(DevStack stack, Intake settings, BenchFigures figures, PrintStream out) {
    this.stack = stack;
    this.settings = settings;
    this.figures = figures;
    this.out = out;
  }

  void run() throws Exception {
    Intake settings = this.settings;
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

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
