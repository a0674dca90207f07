package dev.inboxoutbox.retention;

import dev.inboxoutbox.retention.RetentionCleaner.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * One step's batch statement on a run's connection: each execution removes at most a batch of rows
 * through the step's expiry index, oldest first, skipping rows others hold, and commits on its own.
 */
final class StepBatch implements AutoCloseable {

  // The run's steps and the preview share these, so a preview counts exactly what a run removes.
  // A row is either deleted (its key expired) or pruned (its key stays), never both. A committed
  // PROCESSING row past its key TTL is an abandoned claim and goes too; one whose transaction is
  // still open is either invisible (not yet committed) or locked, and SKIP LOCKED passes it over.
  static final String KEY_EXPIRED = "expires_at <= now()";
  // Only a body is pruned: a bare outcome (kind and code) costs no more than the key that stays,
  // and the index this step reads holds rows with a body only.
  static final String OUTCOME_EXPIRED =
      "outcome_body IS NOT NULL AND outcome_pruned_at IS NULL AND outcome_expires_at <= now()"
          + " AND expires_at > now() AND status <> 'PROCESSING'";
  static final String PUBLISHED_OUTBOX_EXPIRED =
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

  private final Step step;
  private final PreparedStatement statement;
  private final int batchSize;
  private long removed;

  private StepBatch(Step step, PreparedStatement statement, int batchSize) {
    this.step = step;
    this.statement = statement;
    this.batchSize = batchSize;
  }

  static StepBatch prepare(Connection connection, Step step, int batchSize, Duration outboxKeep)
      throws SQLException {
    String sql =
        switch (step) {
          case DELETE_EXPIRED_KEYS -> DELETE_EXPIRED_KEYS;
          case PRUNE_OUTCOME_BODIES -> PRUNE_EXPIRED_OUTCOMES;
          case DELETE_PUBLISHED_OUTBOX_ROWS -> DELETE_PUBLISHED_OUTBOX_ROWS;
        };
    PreparedStatement statement = connection.prepareStatement(sql);
    try {
      if (step == Step.DELETE_PUBLISHED_OUTBOX_ROWS) {
        statement.setDouble(1, seconds(outboxKeep));
        statement.setInt(2, batchSize);
      } else {
        statement.setInt(1, batchSize);
      }
    } catch (SQLException e) {
      statement.close();
      throw e;
    }
    return new StepBatch(step, statement, batchSize);
  }

  /**
   * Runs batches within this step's slice of the run.
   *
   * @return whether the step is done: a batch came back short, so nothing (unlocked) is left
   */
  boolean drain(RunBudget.Slice slice, RunBudget budget) {
    try {
      while (budget.startBatch(slice)) {
        int changed = statement.executeUpdate();
        removed += changed;
        if (changed < batchSize) {
          return true;
        }
      }
      return false;
    } catch (SQLException e) {
      throw new RetentionException(
          "retention failed " + step.description() + " (after " + removed + " rows in that step)",
          e);
    }
  }

  Step step() {
    return step;
  }

  /** Rows this step removed in the run so far. */
  long removed() {
    return removed;
  }

  @Override
  public void close() throws SQLException {
    statement.close();
  }

  // make_interval takes fractional seconds, so a keep below a second is not rounded away.
  static double seconds(Duration duration) {
    return duration.getSeconds() + duration.getNano() / 1e9;
  }
}
