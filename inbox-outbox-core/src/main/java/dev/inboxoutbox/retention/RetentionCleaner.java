package dev.inboxoutbox.retention;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what retention says is expired, in bounded batches, each batch one statement committing
 * on its own. A run works through three steps, sharing {@link Builder#maxBatchesPerRun}:
 *
 * <ol>
 *   <li>inbox rows past {@code expires_at} are deleted, body and all;
 *   <li>outcome bodies past {@code outcome_expires_at} on the keys that stay are pruned ({@code
 *       outcome_body = NULL}, {@code outcome_pruned_at = now()}); a row still {@code PROCESSING}
 *       keeps everything;
 *   <li>published outbox rows created more than {@link Builder#outboxKeep} ago are deleted; an
 *       unpublished row is never deleted, however old.
 * </ol>
 *
 * <p>Expired keys go before bodies are pruned so that a row about to be deleted is not rewritten
 * first: an update is a new row version, and a backlog would double its WAL and bloat for nothing.
 *
 * <p>Every batch picks at most {@link Builder#batchSize} rows through the expiry indexes, oldest
 * first, and locks them with {@code FOR UPDATE SKIP LOCKED}: a row a consumer holds is passed over,
 * never waited on, and taken by a later run. Several cleaners (one per application instance) may
 * therefore run at once; they split the work. Instances are thread-safe.
 *
 * <pre>{@code
 * RetentionCleaner cleaner =
 *     RetentionCleaner.builder(dataSource).batchSize(500).pauseBetweenBatches(ofMillis(20)).build();
 * cleaner.preview();                                     // what a run would remove now
 * try (RetentionCleaner.Schedule schedule = cleaner.schedule(Duration.ofMinutes(5))) {
 *   ...                                                  // runs every 5 minutes until closed
 * }
 * }</pre>
 */
public final class RetentionCleaner {

  private static final Logger log = LoggerFactory.getLogger(RetentionCleaner.class);

  // The run's steps and the preview share these, so a preview counts exactly what a run removes.
  // A row is either deleted (its key expired) or pruned (its key stays), never both. A committed
  // PROCESSING row past its key TTL is an abandoned claim and goes too; one whose transaction is
  // still open is either invisible (not yet committed) or locked, and SKIP LOCKED passes it over.
  private static final String KEY_EXPIRED = "expires_at <= now()";
  private static final String OUTCOME_EXPIRED =
      "outcome_pruned_at IS NULL AND outcome_expires_at <= now() AND expires_at > now()"
          + " AND status <> 'PROCESSING'";
  private static final String PUBLISHED_OUTBOX_EXPIRED =
      "published_at IS NOT NULL AND created_at <= now() - make_interval(secs => ?)";

  // The batch's rows are removed by ctid (a TID scan on the array), which stays cheap even when a
  // generic plan cannot know the LIMIT; a join back to the table might then pick a full scan.
  private static final String DELETE_EXPIRED_KEYS =
      """
      DELETE FROM inbox
       WHERE ctid = ANY (ARRAY(
               SELECT ctid FROM inbox
                WHERE %s
                ORDER BY expires_at
                LIMIT ?
                  FOR UPDATE SKIP LOCKED))
      """
          .formatted(KEY_EXPIRED);

  private static final String PRUNE_EXPIRED_OUTCOMES =
      """
      UPDATE inbox
         SET outcome_body = NULL, outcome_pruned_at = now()
       WHERE ctid = ANY (ARRAY(
               SELECT ctid FROM inbox
                WHERE %s
                ORDER BY outcome_expires_at
                LIMIT ?
                  FOR UPDATE SKIP LOCKED))
      """
          .formatted(OUTCOME_EXPIRED);

  private static final String DELETE_PUBLISHED_OUTBOX_ROWS =
      """
      DELETE FROM outbox
       WHERE ctid = ANY (ARRAY(
               SELECT ctid FROM outbox
                WHERE %s
                ORDER BY created_at
                LIMIT ?
                  FOR UPDATE SKIP LOCKED))
      """
          .formatted(PUBLISHED_OUTBOX_EXPIRED);

  private static final String OLDEST_REMAINING =
      "(SELECT min(expires_at) FROM inbox) AS oldest_key_expiry,"
          + " (SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL)"
          + " AS oldest_published_outbox_row";

  /** One statement, so every count comes from the same snapshot. */
  private static final String PREVIEW =
      """
      SELECT (SELECT count(*) FROM outbox WHERE %s) AS outbox_rows_to_delete,
             (SELECT count(*) FROM inbox WHERE %s) AS keys_to_delete,
             (SELECT count(*) FROM inbox WHERE %s) AS outcomes_to_prune,
             %s
      """
          .formatted(PUBLISHED_OUTBOX_EXPIRED, KEY_EXPIRED, OUTCOME_EXPIRED, OLDEST_REMAINING);

  private static final String OLDEST = "SELECT " + OLDEST_REMAINING;

  private final DataSource dataSource;
  private final int batchSize;
  private final Duration outboxKeep;
  private final int maxBatchesPerRun;
  private final Duration pauseBetweenBatches;

  private RetentionCleaner(Builder builder) {
    this.dataSource = builder.dataSource;
    this.batchSize = builder.batchSize;
    this.outboxKeep = builder.outboxKeep;
    this.maxBatchesPerRun = builder.maxBatchesPerRun;
    this.pauseBetweenBatches = builder.pauseBetweenBatches;
  }

  /** A cleaner on {@code dataSource}, with the defaults each {@link Builder} setter states. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Runs this cleaner on one daemon thread: at once, then {@code interval} after each run ends, so
   * runs never overlap. A failed run is logged and counted, and the next one comes on schedule.
   * Close the schedule to stop it.
   */
  public Schedule schedule(Duration interval) {
    return schedule(interval, report -> {});
  }

  /**
   * As {@link #schedule(Duration)}, handing every successful run's report to {@code listener} on
   * the schedule's thread, e.g. to record metrics; it should return quickly, and an exception it
   * throws is logged and ignored.
   */
  public Schedule schedule(Duration interval, Consumer<Report> listener) {
    return new ScheduledRetention(this, interval, listener).start();
  }

  /**
   * Runs the three steps once on one connection, every batch committing on its own, then measures
   * what is left. Logs one INFO line when anything was removed, DEBUG otherwise.
   *
   * @throws RuntimeException if the database fails; batches committed before stay cleaned
   */
  public Report run() {
    long started = System.nanoTime();
    BatchBudget budget = new BatchBudget();
    long keysDeleted;
    long outcomesPruned;
    long outboxRowsDeleted;
    Oldest oldest;
    try (Connection connection = dataSource.getConnection()) {
      // Each batch its own transaction: its row locks and WAL are released before the next one.
      connection.setAutoCommit(true);
      keysDeleted =
          drain(
              connection,
              "deleting expired keys",
              DELETE_EXPIRED_KEYS,
              budget,
              this::bindBatchSize);
      outcomesPruned =
          drain(
              connection,
              "pruning expired outcome bodies",
              PRUNE_EXPIRED_OUTCOMES,
              budget,
              this::bindBatchSize);
      outboxRowsDeleted =
          drain(
              connection,
              "deleting published outbox rows",
              DELETE_PUBLISHED_OUTBOX_ROWS,
              budget,
              statement -> {
                statement.setDouble(1, seconds(outboxKeep));
                statement.setInt(2, batchSize);
              });
      oldest = oldestRemaining(connection);
    } catch (SQLException e) {
      throw new RetentionException("retention could not open or close its database connection", e);
    }
    Report report =
        new Report(
            outcomesPruned,
            keysDeleted,
            outboxRowsDeleted,
            budget.used,
            Duration.ofNanos(System.nanoTime() - started),
            oldest.keyExpiry,
            oldest.publishedOutboxRow,
            budget.stopReason == null);
    logRun(report, budget.stopReason);
    return report;
  }

  /**
   * Counts what {@link #run()} would remove now, changing nothing: for dry runs and dashboards.
   *
   * @throws RuntimeException if the database fails
   */
  public Preview preview() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(PREVIEW)) {
      query.setDouble(1, seconds(outboxKeep));
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return new Preview(
            row.getLong("outcomes_to_prune"),
            row.getLong("keys_to_delete"),
            row.getLong("outbox_rows_to_delete"),
            instant(row, "oldest_key_expiry"),
            instant(row, "oldest_published_outbox_row"));
      }
    } catch (SQLException e) {
      throw new RetentionException("retention failed previewing what a run would remove", e);
    }
  }

  /** Runs batches of one step until one comes back short or the run's budget is spent. */
  private long drain(
      Connection connection, String step, String sql, BatchBudget budget, Binder binder) {
    long removed = 0;
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      while (budget.startBatch()) {
        int changed = statement.executeUpdate();
        removed += changed;
        if (changed < batchSize) {
          break;
        }
      }
      return removed;
    } catch (SQLException e) {
      throw new RetentionException(
          "retention failed " + step + " (after " + removed + " rows in that step)", e);
    }
  }

  private void bindBatchSize(PreparedStatement statement) throws SQLException {
    statement.setInt(1, batchSize);
  }

  private Oldest oldestRemaining(Connection connection) {
    try (PreparedStatement query = connection.prepareStatement(OLDEST);
        ResultSet row = query.executeQuery()) {
      row.next();
      return new Oldest(
          instant(row, "oldest_key_expiry"), instant(row, "oldest_published_outbox_row"));
    } catch (SQLException e) {
      throw new RetentionException("retention failed measuring the oldest remaining rows", e);
    }
  }

  private static void logRun(Report report, String stopReason) {
    String stopped =
        stopReason == null ? "" : " (stopped early: " + stopReason + "; the next run continues)";
    if (report.rowsAffected() > 0) {
      log.info(
          "retention deleted {} expired keys, pruned {} outcome bodies, deleted {} published outbox"
              + " rows in {} batches, {} ms{}; oldest key expiry {},"
              + " oldest published outbox row {}",
          report.keysDeleted(),
          report.outcomesPruned(),
          report.outboxRowsDeleted(),
          report.batches(),
          report.took().toMillis(),
          stopped,
          report.oldestKeyExpiry().map(Instant::toString).orElse("none"),
          report.oldestPublishedOutboxRow().map(Instant::toString).orElse("none"));
    } else if (log.isDebugEnabled()) {
      log.debug(
          "retention found nothing expired in {} batches, {} ms{}; oldest key expiry {},"
              + " oldest published outbox row {}",
          report.batches(),
          report.took().toMillis(),
          stopped,
          report.oldestKeyExpiry().map(Instant::toString).orElse("none"),
          report.oldestPublishedOutboxRow().map(Instant::toString).orElse("none"));
    }
  }

  private static Optional<Instant> instant(ResultSet row, String column) throws SQLException {
    return Optional.ofNullable(row.getObject(column, OffsetDateTime.class))
        .map(OffsetDateTime::toInstant);
  }

  private static double seconds(Duration duration) {
    return duration.getSeconds() + duration.getNano() / 1e9;
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  private record Oldest(Optional<Instant> keyExpiry, Optional<Instant> publishedOutboxRow) {}

  /** Counts one run's batches against its limit and spaces them by the configured pause. */
  private final class BatchBudget {
    private int used;
    private String stopReason;

    /** Whether another batch may run now; once false, it stays false for the rest of the run. */
    boolean startBatch() {
      if (stopReason == null && used >= maxBatchesPerRun) {
        stopReason = "maxBatchesPerRun (" + maxBatchesPerRun + ") reached";
      }
      if (stopReason == null && (Thread.currentThread().isInterrupted() || !pauseAfterFirst())) {
        stopReason = "interrupted";
      }
      if (stopReason != null) {
        return false;
      }
      used++;
      return true;
    }

    private boolean pauseAfterFirst() {
      Duration pause = pauseBetweenBatches;
      if (used == 0 || pause.isZero()) {
        return true;
      }
      try {
        Thread.sleep(pause.toMillis());
        return true;
      } catch (InterruptedException e) {
        // Whoever interrupted (Schedule.close) still needs to see it.
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /**
   * What one cleanup run did. A key row deleted with its body still in place counts as a deleted
   * key only, never also as a pruned outcome.
   *
   * @param batches statements run, the final short (or empty) batch of each phase included
   * @param oldestKeyExpiry the earliest {@code expires_at} left in the inbox afterwards; in the
   *     past means cleanup is behind (or a consumer held that row)
   * @param oldestPublishedOutboxRow the {@code created_at} of the oldest published outbox row left
   * @param complete false when {@link Builder#maxBatchesPerRun} (or an interrupt) stopped the run
   *     with work possibly left for the next one
   */
  public record Report(
      long outcomesPruned,
      long keysDeleted,
      long outboxRowsDeleted,
      int batches,
      Duration took,
      Optional<Instant> oldestKeyExpiry,
      Optional<Instant> oldestPublishedOutboxRow,
      boolean complete) {

    public Report {
      Objects.requireNonNull(took, "took");
      Objects.requireNonNull(oldestKeyExpiry, "oldestKeyExpiry");
      Objects.requireNonNull(oldestPublishedOutboxRow, "oldestPublishedOutboxRow");
    }

    /** Outcome bodies pruned plus rows deleted. */
    public long rowsAffected() {
      return outcomesPruned + keysDeleted + outboxRowsDeleted;
    }
  }

  /**
   * What a cleanup run would remove at this moment, read in one snapshot without changing anything.
   * A real run may remove less: rows a consumer has locked are skipped, and {@link
   * Builder#maxBatchesPerRun} may stop it first.
   *
   * @param oldestKeyExpiry the earliest {@code expires_at} in the inbox now, before any cleanup
   * @param oldestPublishedOutboxRow the {@code created_at} of the oldest published outbox row now
   */
  public record Preview(
      long outcomesToPrune,
      long keysToDelete,
      long outboxRowsToDelete,
      Optional<Instant> oldestKeyExpiry,
      Optional<Instant> oldestPublishedOutboxRow) {

    public Preview {
      Objects.requireNonNull(oldestKeyExpiry, "oldestKeyExpiry");
      Objects.requireNonNull(oldestPublishedOutboxRow, "oldestPublishedOutboxRow");
    }
  }

  /** Periodic runs of a cleaner, from {@link #schedule}; {@link #close()} stops them. */
  public interface Schedule extends AutoCloseable {

    /** The report of the latest successful run, empty before the first one. */
    Optional<Report> lastReport();

    /** Runs that finished with a report. */
    long runs();

    /** Runs that failed with an exception. */
    long failures();

    /** Stops scheduling, interrupts a run between batches and waits for it to end. */
    @Override
    void close();
  }

  /**
   * Builds a {@link RetentionCleaner}. The inbox TTLs themselves are stamped on each row at claim
   * time (see {@link dev.inboxoutbox.inbox.Inbox.Retention}); these settings only say how long
   * published outbox rows stay and how hard one cleanup run may push. Each setter rejects a bad
   * value at once.
   */
  public static final class Builder {
    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final Duration DEFAULT_OUTBOX_KEEP = Duration.ofDays(7);
    public static final int DEFAULT_MAX_BATCHES_PER_RUN = 1000;
    public static final Duration DEFAULT_PAUSE_BETWEEN_BATCHES = Duration.ZERO;

    private final DataSource dataSource;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration outboxKeep = DEFAULT_OUTBOX_KEEP;
    private int maxBatchesPerRun = DEFAULT_MAX_BATCHES_PER_RUN;
    private Duration pauseBetweenBatches = DEFAULT_PAUSE_BETWEEN_BATCHES;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Rows per batch, each batch its own transaction: short transactions keep row locks and WAL
     * bursts small. Default {@value #DEFAULT_BATCH_SIZE}.
     */
    public Builder batchSize(int batchSize) {
      if (batchSize <= 0) {
        throw new IllegalArgumentException(
            "retention batchSize must be positive; was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * How long a published outbox row (policy KEEP) stays for inspection, counted from its {@code
     * created_at}; zero removes published rows at the next run. Default 7 days.
     */
    public Builder outboxKeep(Duration outboxKeep) {
      Objects.requireNonNull(outboxKeep, "outboxKeep");
      if (outboxKeep.isNegative()) {
        throw new IllegalArgumentException(
            "retention outboxKeep must not be negative; was " + outboxKeep);
      }
      this.outboxKeep = outboxKeep;
      return this;
    }

    /**
     * Bounds one run over all phases; what is left waits for the next run. Default {@value
     * #DEFAULT_MAX_BATCHES_PER_RUN}.
     */
    public Builder maxBatchesPerRun(int maxBatchesPerRun) {
      if (maxBatchesPerRun <= 0) {
        throw new IllegalArgumentException(
            "retention maxBatchesPerRun must be positive; was " + maxBatchesPerRun);
      }
      this.maxBatchesPerRun = maxBatchesPerRun;
      return this;
    }

    /**
     * Sleep before each batch but the first, so a large backlog is worked off without monopolising
     * the database's I/O. Default none.
     */
    public Builder pauseBetweenBatches(Duration pauseBetweenBatches) {
      Objects.requireNonNull(pauseBetweenBatches, "pauseBetweenBatches");
      if (pauseBetweenBatches.isNegative()) {
        throw new IllegalArgumentException(
            "retention pauseBetweenBatches must not be negative; was " + pauseBetweenBatches);
      }
      this.pauseBetweenBatches = pauseBetweenBatches;
      return this;
    }

    public RetentionCleaner build() {
      return new RetentionCleaner(this);
    }
  }
}
