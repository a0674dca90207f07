package dev.inboxoutbox.retention;

import dev.inboxoutbox.retention.RetentionCleaner.Backlog;
import dev.inboxoutbox.retention.RetentionCleaner.Preview;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Counts what a run would remove now, changing nothing. It counts through the very conditions the
 * run's batches select by ({@link StepBatch}), so a preview and a run cannot disagree on what is
 * expired.
 */
final class RetentionPreview {

  /**
   * One statement, so every count comes from the same snapshot. Exact counts, unlike a run's {@link
   * Backlog}: a preview is asked for, not taken after every run.
   */
  private static final String PREVIEW =
      """
      SELECT (SELECT count(*) FROM outbox WHERE %s) AS outbox_rows_to_delete,
             (SELECT count(*) FROM inbox WHERE %s) AS keys_to_delete,
             (SELECT count(*) FROM inbox WHERE %s) AS outcomes_to_prune,
             (SELECT min(expires_at) FROM inbox) AS oldest_key_expiry,
             (SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL)
               AS oldest_published_outbox_row
      """
          .formatted(
              StepBatch.PUBLISHED_OUTBOX_EXPIRED, StepBatch.KEY_EXPIRED, StepBatch.OUTCOME_EXPIRED);

  private final DataSource dataSource;
  private final Duration outboxKeep;

  RetentionPreview(DataSource dataSource, Duration outboxKeep) {
    this.dataSource = dataSource;
    this.outboxKeep = outboxKeep;
  }

  Preview read() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(PREVIEW)) {
      query.setDouble(1, StepBatch.seconds(outboxKeep));
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return new Preview(
            row.getLong("outcomes_to_prune"),
            row.getLong("keys_to_delete"),
            row.getLong("outbox_rows_to_delete"),
            BacklogProbe.instant(row, "oldest_key_expiry"),
            BacklogProbe.instant(row, "oldest_published_outbox_row"));
      }
    } catch (SQLException e) {
      throw new RetentionException("retention failed previewing what a run would remove", e);
    }
  }
}
