package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Figure;
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
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * The inbox's SQL cost per key on one connection: batches of {@value #BATCH} keys, each one
 * transaction of claim + state insert + outcome, against the same state insert and commit without
 * an inbox. Both ways of recording an outcome are measured: in two steps (a PROCESSING claim, then
 * the completion: the public API's {@code claimAll} + {@code completeAll}) and in one write (the
 * consumer's {@code claimAllPresumingSuccess} + {@code correctPresumedSuccesses}, every outcome a
 * bare success). Runs on an empty inbox and on one pre-filled with random keys, so a cost that
 * grows with the table shows. Beside them, the least claim a unique index allows ({@link
 * #LEAST_CLAIM}), the floor the inbox's claim is compared with. Each figure is the median of the
 * repeats after a warm-up run, in the run's {@link BenchFigures}; never part of the tests'
 * pass/fail.
 */
final class InboxSqlBench {

  static final int BATCH = 200;
  static final double TARGET_MICROS_PER_KEY = 20;

  /** The whole transaction with an inbox against the same state insert without one. */
  static final double TARGET_TRANSACTION_RATIO = 0.4;

  static final double TARGET_FLAT_RATIO = 0.9;
  private static final String PART = "sql";
  private static final Scope SCOPE = Scope.of("bench-sql");

  private static final String CREATE_STATE =
      """
      CREATE TABLE bench_state (id bigserial PRIMARY KEY, key text NOT NULL, amount int NOT NULL)
      """;

  private static final String INSERT_STATE =
      """
      INSERT INTO bench_state (key, amount) SELECT k, 1 FROM unnest(?::text[]) AS k
      """;

  /**
   * The least any claim through a unique index can be: a 16-byte digest as the primary key and an
   * expiry, nothing readable, no constraint, one {@code INSERT ... ON CONFLICT DO NOTHING
   * RETURNING}. Measured beside the inbox so a target no such claim reaches shows as such.
   */
  static final String CREATE_LEAST_CLAIM =
      """
      CREATE TABLE bench_least_claim (key_hash bytea PRIMARY KEY, expires_at timestamptz NOT NULL)
      """;

  private static final String LEAST_CLAIM =
      """
      INSERT INTO bench_least_claim (key_hash, expires_at)
      SELECT d, now() + interval '7 days' FROM unnest(?::bytea[]) AS d ORDER BY d
      ON CONFLICT DO NOTHING
      RETURNING key_hash
      """;

  /** Random UUID-shaped keys, so the primary key index is as scattered as with real keys. */
  private static final String PREFILL =
      """
      INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                         completed_at, outcome_expires_at, expires_at)
      SELECT ?, uuid_in(md5(random()::text || g)::cstring)::text, md5(g::text) || md5(g::text),
             'COMPLETED', 'SUCCESS', now(), now() + interval '1 day', now() + interval '7 days'
      FROM generate_series(1, ?) g
      """;

  /**
   * The least claim's table gets as many random digests as the inbox: the floor it stands for is
   * that of a unique index of the same size.
   */
  private static final String PREFILL_LEAST_CLAIM =
      """
      INSERT INTO bench_least_claim (key_hash, expires_at)
      SELECT decode(md5(random()::text || g), 'hex'), now() + interval '7 days'
      FROM generate_series(1, ?) g
      """;

  private static final String UPDATE_COUNTS =
      """
      SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'inbox'
      """;

  private final DevStack stack;
  private final int batchesPerRun;
  private final long inboxRows;
  private final OptionalInt fillfactor;
  private final int repeat;
  private final BenchFigures figures;
  private final PrintStream out;
  private final Inbox inbox = Inbox.builder().build();

  /** How a batch records its outcomes: the two ways the inbox offers. */
  private enum Recording {
    TWO_STEPS("two steps"),
    ONE_WRITE("one write");

    final String label;

    Recording(String label) {
      this.label = label;
    }
  }

  /**
   * @param fillfactor the inbox table's fillfactor for the measurement (free space per page lets
   *     the completion update in place, HOT); empty keeps the schema's
   * @param repeat measured runs per figure, after one warm-up run
   */
  InboxSqlBench(
      DevStack stack,
      int batchesPerRun,
      long inboxRows,
      OptionalInt fillfactor,
      int repeat,
      BenchFigures figures,
      PrintStream out) {
    this.stack = stack;
    this.batchesPerRun = batchesPerRun;
    this.inboxRows = inboxRows;
    this.fillfactor = fillfactor;
    this.repeat = repeat;
    this.figures = figures;
    this.out = out;
  }

  void run() throws SQLException {
    out.printf(
        "%nSQL micro-benchmark: one connection, %d runs of %d batches of %d keys, median%s%n",
        repeat,
        batchesPerRun,
        BATCH,
        fillfactor.isPresent() ? "; inbox fillfactor " + fillfactor.getAsInt() : "");
    try (Subject empty = new Subject("empty", 0);
        Subject filled =
            inboxRows > 0
                ? new Subject(String.format(Locale.ROOT, "%,d rows", inboxRows), inboxRows)
                : null) {
      List<Subject> subjects = filled == null ? List.of(empty) : List.of(empty, filled);
      // Whether a large inbox's key index stays in memory decides its figures.
      String sharedBuffers = empty.setting("shared_buffers");
      out.printf("PostgreSQL shared_buffers: %s%n", sharedBuffers);
      figures.note("sql: PostgreSQL shared_buffers " + sharedBuffers);
      for (Subject subject : subjects) {
        subject.warmUp();
      }
      // Interleaved, in alternating order: a machine that gets busier during the run slows both
      // inboxes alike instead of the one measured last.
      for (int i = 0; i < repeat; i++) {
        for (int s = 0; s < subjects.size(); s++) {
          subjects.get(i % 2 == 0 ? s : subjects.size() - 1 - s).measureOnce();
        }
      }
      Map<Recording, Figure> emptyFigures = empty.report();
      if (filled != null) {
        Map<Recording, Figure> filledFigures = filled.report();
        for (Recording recording : Recording.values()) {
          // The same figure in keys per second, against the empty inbox's: 1.00 is flat.
          Figure emptyRate =
              figures.add(
                  PART,
                  "empty: claim + outcome, " + recording.label,
                  "keys/s",
                  Better.HIGHER,
                  keysPerSecond(emptyFigures.get(recording)),
                  Optional.empty(),
                  Optional.empty());
          figures.add(
              PART,
              String.format(
                  Locale.ROOT, "%,d rows: claim + outcome, %s", inboxRows, recording.label),
              "keys/s",
              Better.HIGHER,
              keysPerSecond(filledFigures.get(recording)),
              Optional.of(emptyRate),
              Optional.of(Target.ratioAtLeast(TARGET_FLAT_RATIO)));
        }
      }
    }
  }

  private static List<Double> keysPerSecond(Figure microsPerKey) {
    return microsPerKey.samples().stream().map(micros -> 1e6 / micros).toList();
  }

  /** One inbox under measurement: its own database and connection, and its samples so far. */
  private final class Subject implements AutoCloseable {
    private final String label;
    private final Database db;
    private final Connection connection;
    private final List<Double> baseline = new ArrayList<>();
    private final Samples leastClaim = new Samples();
    private final Map<Recording, Samples> samples = new EnumMap<>(Recording.class);
    private long[] updatesBefore;

    Subject(String label, long prefilled) throws SQLException {
      this.label = label;
      this.db = stack.postgres().createDatabase();
      InboxOutboxSchema.migrate(db.dataSource());
      this.connection = db.connect();
      try (Statement statement = connection.createStatement()) {
        statement.execute(CREATE_STATE);
        statement.execute(CREATE_LEAST_CLAIM);
        if (fillfactor.isPresent()) {
          statement.execute("ALTER TABLE inbox SET (fillfactor = " + fillfactor.getAsInt() + ")");
        }
      }
      if (prefilled > 0) {
        long started = System.nanoTime();
        prefill(connection, prefilled);
        out.printf(
            "%s: filled and analysed in %.1f s%n", label, (System.nanoTime() - started) / 1e9);
      }
      connection.setAutoCommit(false);
      for (Recording recording : Recording.values()) {
        samples.put(recording, new Samples());
      }
    }

    String setting(String name) throws SQLException {
      try (PreparedStatement show = connection.prepareStatement("SELECT current_setting(?)")) {
        show.setString(1, name);
        try (ResultSet value = show.executeQuery()) {
          value.next();
          return value.getString(1);
        }
      }
    }

    void warmUp() throws SQLException {
      run(connection, null, new Timings());
      runLeastClaim(connection, new Timings());
      for (Recording recording : Recording.values()) {
        run(connection, recording, new Timings());
      }
      updatesBefore = updateCounts(connection);
    }

    void measureOnce() throws SQLException {
      Timings plain = run(connection, null, new Timings());
      baseline.add(plain.microsPerKey(plain.total));
      leastClaim.add(runLeastClaim(connection, new Timings()));
      for (Recording recording : Recording.values()) {
        samples.get(recording).add(run(connection, recording, new Timings()));
      }
    }

    /** Adds this inbox's figures; returns the claim + outcome figure (µs/key) per recording. */
    Map<Recording, Figure> report() throws SQLException {
      long[] updatesAfter = updateCounts(connection);
      long updates = updatesAfter[0] - updatesBefore[0];
      long hot = updatesAfter[1] - updatesBefore[1];
      figures.note(
          String.format(
              Locale.ROOT,
              "sql, %s: inbox row updates %d, of them HOT %d (%.0f%%)",
              label,
              updates,
              hot,
              updates == 0 ? 0.0 : 100.0 * hot / updates));
      Figure plain =
          figures.add(
              PART,
              label + ": state insert + commit",
              "µs/key",
              Better.LOWER,
              baseline,
              Optional.empty(),
              Optional.empty());
      figures.add(
          PART,
          label + ": least claim (digest + expiry only): + state insert + commit",
          "µs/key",
          Better.LOWER,
          leastClaim.total,
          Optional.of(plain),
          Optional.empty());
      Figure least =
          figures.add(
              PART,
              label + ": least claim (digest + expiry only)",
              "µs/key",
              Better.LOWER,
              leastClaim.claim,
              Optional.empty(),
              Optional.empty());
      Map<Recording, Figure> claimAndOutcome = new EnumMap<>(Recording.class);
      for (Recording recording : Recording.values()) {
        Samples measured = samples.get(recording);
        String name = label + ": " + recording.label;
        figures.add(
            PART,
            name + ": + state insert + commit",
            "µs/key",
            Better.LOWER,
            measured.total,
            Optional.of(plain),
            Optional.of(Target.ratioAtLeast(TARGET_TRANSACTION_RATIO)));
        figures.add(
            PART,
            name + ": claim",
            "µs/key",
            Better.LOWER,
            measured.claim,
            Optional.empty(),
            Optional.empty());
        figures.add(
            PART,
            name + ": outcome",
            "µs/key",
            Better.LOWER,
            measured.outcome,
            Optional.empty(),
            Optional.empty());
        claimAndOutcome.put(
            recording,
            figures.add(
                PART,
                name + ": claim + outcome",
                "µs/key",
                Better.LOWER,
                measured.claimAndOutcome,
                Optional.of(least),
                Optional.of(Target.atMost(TARGET_MICROS_PER_KEY))));
      }
      return claimAndOutcome;
    }

    @Override
    public void close() throws SQLException {
      try {
        connection.close();
      } finally {
        db.close();
      }
    }
  }

  static void prefill(Connection connection, long rows) throws SQLException {
    long chunk = 500_000;
    try (PreparedStatement inbox = connection.prepareStatement(PREFILL);
        PreparedStatement leastClaim = connection.prepareStatement(PREFILL_LEAST_CLAIM)) {
      inbox.setString(1, SCOPE.operation());
      for (long done = 0; done < rows; done += chunk) {
        long size = Math.min(chunk, rows - done);
        inbox.setLong(2, size);
        inbox.executeUpdate();
        leastClaim.setLong(1, size);
        leastClaim.executeUpdate();
      }
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("VACUUM ANALYZE inbox");
      statement.execute("VACUUM ANALYZE bench_least_claim");
    }
  }

  /** Nanoseconds spent in each step over one run. */
  private final class Timings {
    long claim;
    long outcome;
    long total;

    double microsPerKey(long nanos) {
      return nanos / 1e3 / ((double) batchesPerRun * BATCH);
    }
  }

  /** One recording's samples, one per run, in µs per key. */
  private static final class Samples {
    final List<Double> total = new ArrayList<>();
    final List<Double> claim = new ArrayList<>();
    final List<Double> outcome = new ArrayList<>();
    final List<Double> claimAndOutcome = new ArrayList<>();

    void add(Timings run) {
      total.add(run.microsPerKey(run.total));
      claim.add(run.microsPerKey(run.claim));
      outcome.add(run.microsPerKey(run.outcome));
      claimAndOutcome.add(run.microsPerKey(run.claim + run.outcome));
    }
  }

  /** One run of batches claimed through {@link #LEAST_CLAIM} instead of the inbox. */
  private Timings runLeastClaim(Connection connection, Timings timings) throws SQLException {
    for (int b = 0; b < batchesPerRun; b++) {
      String[] keys = new String[BATCH];
      byte[][] digests = new byte[BATCH][];
      for (int i = 0; i < BATCH; i++) {
        keys[i] = UUID.randomUUID().toString();
        digests[i] = leastClaimDigest(keys[i]);
      }
      long started = System.nanoTime();
      try (PreparedStatement claim = connection.prepareStatement(LEAST_CLAIM)) {
        claim.setArray(1, connection.createArrayOf("bytea", digests));
        try (ResultSet claimed = claim.executeQuery()) {
          while (claimed.next()) {
            claimed.getBytes(1);
          }
        }
      }
      timings.claim += System.nanoTime() - started;
      try (PreparedStatement insert = connection.prepareStatement(INSERT_STATE)) {
        insert.setArray(1, connection.createArrayOf("text", keys));
        insert.executeUpdate();
      }
      connection.commit();
      timings.total += System.nanoTime() - started;
    }
    return timings;
  }

  private static byte[] leastClaimDigest(String key) {
    try {
      return Arrays.copyOf(
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)), 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  /** One run of batches; {@code recording} null runs them without an inbox. */
  private Timings run(Connection connection, Recording recording, Timings timings)
      throws SQLException {
    for (int b = 0; b < batchesPerRun; b++) {
      String[] keys = new String[BATCH];
      List<ClaimRequest> requests = new ArrayList<>(BATCH);
      byte[] body = "{\"amount\":1}".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < BATCH; i++) {
        keys[i] = UUID.randomUUID().toString();
        requests.add(ClaimRequest.ofBytes(SCOPE, IdempotencyKey.of(keys[i]), body));
      }
      long started = System.nanoTime();
      List<ClaimResult> claims = List.of();
      if (recording != null) {
        claims =
            recording == Recording.TWO_STEPS
                ? inbox.claimAll(connection, requests)
                : inbox.claimAllPresumingSuccess(connection, requests);
        timings.claim += System.nanoTime() - started;
      }
      try (PreparedStatement insert = connection.prepareStatement(INSERT_STATE)) {
        insert.setArray(1, connection.createArrayOf("text", keys));
        insert.executeUpdate();
      }
      if (recording != null) {
        long recordingOutcomes = System.nanoTime();
        List<Completion> completions =
            claims.stream()
                .map(claim -> Completion.of((ClaimResult.New) claim, Outcome.success()))
                .toList();
        if (recording == Recording.TWO_STEPS) {
          inbox.completeAll(connection, completions);
        } else {
          inbox.correctPresumedSuccesses(connection, completions);
        }
        timings.outcome += System.nanoTime() - recordingOutcomes;
      }
      connection.commit();
      timings.total += System.nanoTime() - started;
    }
    return timings;
  }

  private static long[] updateCounts(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      // A backend reports its counters at a commit at most every 500 ms, and the statistics
      // collector publishes them a moment later.
      statement.execute("SELECT pg_sleep(0.6)");
      connection.commit();
      statement.execute("SELECT pg_sleep(0.3)");
      connection.commit();
      try (ResultSet row = statement.executeQuery(UPDATE_COUNTS)) {
        row.next();
        long[] counts = {row.getLong(1), row.getLong(2)};
        connection.commit();
        return counts;
      }
    }
  }
}
