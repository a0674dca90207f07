package dev.inboxoutbox.chaos;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.ClaimRequest;
import dev.inboxoutbox.inbox.Inbox.ClaimResult;
import dev.inboxoutbox.inbox.Inbox.Completion;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * The inbox's SQL cost per key on one connection: batches of {@value #BATCH} keys, each one
 * transaction of claim + state insert + completion, against the same state insert and commit
 * without an inbox. Runs on an empty inbox and on one pre-filled with random keys, so a cost that
 * grows with the table shows. Prints the median of {@value #RUNS} runs after a warm-up run; never
 * part of the tests' pass/fail.
 */
final class InboxSqlBench {

  static final int BATCH = 200;
  static final double TARGET_MICROS_PER_KEY = 30;
  private static final int RUNS = 3;
  private static final Scope SCOPE = Scope.of("bench-sql");

  private static final String CREATE_STATE =
      """
      CREATE TABLE bench_state (id bigserial PRIMARY KEY, key text NOT NULL, amount int NOT NULL)
      """;

  private static final String INSERT_STATE =
      """
      INSERT INTO bench_state (key, amount) SELECT k, 1 FROM unnest(?::text[]) AS k
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

  private static final String UPDATE_COUNTS =
      """
      SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'inbox'
      """;

  private final DevStack stack;
  private final int batchesPerRun;
  private final long inboxRows;
  private final OptionalInt fillfactor;
  private final PrintStream out;
  private final Inbox inbox = Inbox.builder().build();

  /**
   * @param fillfactor the inbox table's fillfactor for the measurement (free space per page lets
   *     the completion update in place, HOT); empty keeps the schema's
   */
  InboxSqlBench(
      DevStack stack, int batchesPerRun, long inboxRows, OptionalInt fillfactor, PrintStream out) {
    this.stack = stack;
    this.batchesPerRun = batchesPerRun;
    this.inboxRows = inboxRows;
    this.fillfactor = fillfactor;
    this.out = out;
  }

  void run() throws SQLException {
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    out.printf(
        "%nSQL micro-benchmark: one connection, %d runs of %d batches of %d keys, median%s%n",
        RUNS,
        batchesPerRun,
        BATCH,
        fillfactor.isPresent() ? "; inbox fillfactor " + fillfactor.getAsInt() : "");
    List<Row> rows = new ArrayList<>();
    rows.addAll(measure("empty inbox", 0));
    if (inboxRows > 0) {
      rows.addAll(measure(String.format("%,d rows in the inbox", inboxRows), inboxRows));
    }
    out.printf("%n%-72s %10s %10s %8s%n", "SQL, per key", "µs/key", "keys/s", "ratio");
    for (Row row : rows) {
      out.printf(
          "%-72s %10.1f %10.0f %8s%n",
          row.name(), row.micros(), 1e6 / row.micros(), row.ratio().orElse("-"));
    }
    cpuAtStart.ifPresent(
        start ->
            MachineLoad.Sample.read()
                .ifPresent(
                    end ->
                        out.println(
                            MachineLoad.between(
                                    start, end, Runtime.getRuntime().availableProcessors())
                                .describe())));
  }

  private record Row(String name, double micros, Optional<String> ratio) {}

  private List<Row> measure(String label, long prefilled) throws SQLException {
    try (Database db = stack.postgres().createDatabase()) {
      InboxOutboxSchema.migrate(db.dataSource());
      try (Connection connection = db.connect()) {
        try (Statement statement = connection.createStatement()) {
          statement.execute(CREATE_STATE);
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
        run(connection, true, new Timings());
        run(connection, false, new Timings());
        double[] baseline = new double[RUNS];
        double[] claimAndCompletion = new double[RUNS];
        double[] withInbox = new double[RUNS];
        double[] claimOnly = new double[RUNS];
        double[] completionOnly = new double[RUNS];
        long[] updatesBefore = updateCounts(connection);
        for (int i = 0; i < RUNS; i++) {
          Timings plain = run(connection, false, new Timings());
          Timings inboxed = run(connection, true, new Timings());
          baseline[i] = plain.microsPerKey(plain.total, batchesPerRun);
          withInbox[i] = inboxed.microsPerKey(inboxed.total, batchesPerRun);
          claimAndCompletion[i] =
              inboxed.microsPerKey(inboxed.claim + inboxed.completion, batchesPerRun);
          claimOnly[i] = inboxed.microsPerKey(inboxed.claim, batchesPerRun);
          completionOnly[i] = inboxed.microsPerKey(inboxed.completion, batchesPerRun);
        }
        long[] updatesAfter = updateCounts(connection);
        long updates = updatesAfter[0] - updatesBefore[0];
        long hot = updatesAfter[1] - updatesBefore[1];
        out.printf(
            "%s: completion updates %d, of them HOT %d (%.0f%%)%n",
            label, updates, hot, updates == 0 ? 0.0 : 100.0 * hot / updates);
        double plainMedian = median(baseline);
        double inboxMedian = median(withInbox);
        double claimMedian = median(claimAndCompletion);
        return List.of(
            new Row(label + ": state insert + commit, no inbox", plainMedian, Optional.empty()),
            new Row(
                label + ": claim + state insert + completion + commit",
                inboxMedian,
                Optional.of(String.format("%.2f", plainMedian / inboxMedian))),
            new Row(label + ":   claim", median(claimOnly), Optional.empty()),
            new Row(label + ":   completion", median(completionOnly), Optional.empty()),
            new Row(
                label + ": claim + completion (target ≤ 30 µs)",
                claimMedian,
                Optional.of(String.format("%.2f", TARGET_MICROS_PER_KEY / claimMedian))));
      }
    }
  }

  private static void prefill(Connection connection, long rows) throws SQLException {
    long chunk = 500_000;
    for (long done = 0; done < rows; done += chunk) {
      try (PreparedStatement insert = connection.prepareStatement(PREFILL)) {
        insert.setString(1, SCOPE.operation());
        insert.setLong(2, Math.min(chunk, rows - done));
        insert.executeUpdate();
      }
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("VACUUM ANALYZE inbox");
    }
  }

  /** Nanoseconds spent in each step over one run. */
  private static final class Timings {
    long claim;
    long completion;
    long total;

    double microsPerKey(long nanos, int batches) {
      return nanos / 1e3 / ((double) batches * BATCH);
    }
  }

  private Timings run(Connection connection, boolean withInbox, Timings timings)
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
      if (withInbox) {
        claims = inbox.claimAll(connection, requests);
        timings.claim += System.nanoTime() - started;
      }
      try (PreparedStatement insert = connection.prepareStatement(INSERT_STATE)) {
        insert.setArray(1, connection.createArrayOf("text", keys));
        insert.executeUpdate();
      }
      if (withInbox) {
        long completing = System.nanoTime();
        inbox.completeAll(
            connection,
            claims.stream()
                .map(claim -> Completion.of((ClaimResult.New) claim, Outcome.success()))
                .toList());
        timings.completion += System.nanoTime() - completing;
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

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
