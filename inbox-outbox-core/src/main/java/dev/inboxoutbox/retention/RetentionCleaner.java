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
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what retention says is expired, in bounded batches, each batch one statement committing
 * on its own. A run works through three steps, sharing {@link RetentionPolicy#maxBatchesPerRun()}:
 *
 * <ol>
 *   <li>inbox rows past {@code expires_at} are deleted, body and all;
 *   <li>outcome bodies past {@code outcome_expires_at} on the keys that stay are pruned ({@code
 *       outcome_body = NULL}, {@code outcome_pruned_at = now()}); a row still {@code PROCESSING}
 *       keeps everything;
 *   <li>published outbox rows created more than {@link RetentionPolicy#outboxKeep()} ago are
 *       deleted; an unpublished row is never deleted, however old.
 * </ol>
 *
 * <p>Expired keys go before bodies are pruned so that a row about to be deleted is not rewritten
 * first: an update is a new row version, and a backlog would double its WAL and bloat for nothing.
 *
 * <p>Every batch picks at most {@link RetentionPolicy#batchSize()} rows through the expiry indexes,
 * oldest first, and locks them with {@code FOR UPDATE SKIP LOCKED}: a row a consumer holds is
 * passed over, never waited on, and taken by a later run. Several cleaners (one per application
 * instance) may therefore run at once; they split the work. Instances are thread-safe.
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
  private final RetentionPolicy policy;

  public RetentionCleaner(DataSource dataSource, RetentionPolicy policy) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /**
   * Runs the three steps once on one connection, every batch committing on its own, then measures
   * what is left. Logs one INFO line when anything was removed, DEBUG otherwise.
   *
   * @throws RetentionException if the database fails; batches committed before stay cleaned
   */
  public RetentionReport run() {
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
                statement.setDouble(1, seconds(policy.outboxKeep()));
                statement.setInt(2, policy.batchSize());
              });
      oldest = oldestRemaining(connection);
    } catch (SQLException e) {
      throw new RetentionException("retention could not open or close its database connection", e);
    }
    RetentionReport report =
        new RetentionReport(
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
   * @throws RetentionException if the database fails
   */
  public RetentionPreview preview() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(PREVIEW)) {
      query.setDouble(1, seconds(policy.outboxKeep()));
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return new RetentionPreview(
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
        if (changed < policy.batchSize()) {
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
    statement.setInt(1, policy.batchSize());
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

  private static void logRun(RetentionReport report, String stopReason) {
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

  /** Counts one run's batches against its limit and spaces them by the policy's pause. */
  private final class BatchBudget {
    private int used;
    private String stopReason;

    /** Whether another batch may run now; once false, it stays false for the rest of the run. */
    boolean startBatch() {
      if (stopReason == null && used >= policy.maxBatchesPerRun()) {
        stopReason = "maxBatchesPerRun (" + policy.maxBatchesPerRun() + ") reached";
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
      Duration pause = policy.pauseBetweenBatches();
      if (used == 0 || pause.isZero()) {
        return true;
      }
      try {
        Thread.sleep(pause.toMillis());
        return true;
      } catch (InterruptedException e) {
        // Whoever interrupted (RetentionScheduler.close) still needs to see it.
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }
}
