package dev.inboxoutbox.retention;

import dev.inboxoutbox.retention.RetentionCleaner.Backlog;
import dev.inboxoutbox.retention.RetentionCleaner.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Measures what each step leaves behind after a run, cheaply enough to do after every run: the
 * oldest due time is one end of an expiry index, and the overdue rows are counted through the same
 * index only up to {@link Backlog#COUNT_LIMIT}, so a backlog of millions costs a bounded scan, not
 * a count of millions.
 */
final class BacklogProbe {

  // Bodies on keys that are themselves expired count as overdue too: they are still stored past
  // their TTL, whichever step removes them. PROCESSING rows have no body to remove. The condition
  // is the partial index's, so both reads stay on it.
  private static final String BODY_STORED =
      "outcome_body IS NOT NULL AND outcome_pruned_at IS NULL AND status <> 'PROCESSING'";

  /** One statement, so every figure comes from the same snapshot. */
  private static final String BACKLOG =
      """
      SELECT (SELECT min(expires_at) FROM inbox) AS keys_oldest_due,
             (SELECT count(*) FROM (SELECT 1 FROM inbox
                                     WHERE expires_at <= now() LIMIT ?) k) AS keys_overdue,
             (SELECT min(outcome_expires_at) FROM inbox WHERE %1$s) AS bodies_oldest_due,
             (SELECT count(*) FROM (SELECT 1 FROM inbox
                                     WHERE %1$s AND outcome_expires_at <= now() LIMIT ?) b)
               AS bodies_overdue,
             (SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL)
               AS outbox_oldest_published,
             (SELECT count(*) FROM (SELECT 1 FROM outbox
                                     WHERE published_at IS NOT NULL
                                       AND created_at <= now() - make_interval(secs => ?)
                                     LIMIT ?) o) AS outbox_overdue
      """
          .formatted(BODY_STORED);

  private final Duration outboxKeep;

  BacklogProbe(Duration outboxKeep) {
    this.outboxKeep = outboxKeep;
  }

  Map<Step, Backlog> measure(Connection connection) {
    try (PreparedStatement query = connection.prepareStatement(BACKLOG)) {
      query.setInt(1, Backlog.COUNT_LIMIT);
      query.setInt(2, Backlog.COUNT_LIMIT);
      query.setDouble(3, StepBatch.seconds(outboxKeep));
      query.setInt(4, Backlog.COUNT_LIMIT);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        Map<Step, Backlog> backlog = new EnumMap<>(Step.class);
        backlog.put(
            Step.DELETE_EXPIRED_KEYS,
            new Backlog(row.getLong("keys_overdue"), instant(row, "keys_oldest_due")));
        backlog.put(
            Step.PRUNE_OUTCOME_BODIES,
            new Backlog(row.getLong("bodies_overdue"), instant(row, "bodies_oldest_due")));
        backlog.put(
            Step.DELETE_PUBLISHED_OUTBOX_ROWS,
            new Backlog(
                row.getLong("outbox_overdue"),
                instant(row, "outbox_oldest_published").map(created -> created.plus(outboxKeep))));
        return backlog;
      }
    } catch (SQLException e) {
      throw new RetentionException("retention failed measuring the backlog it left", e);
    }
  }

  static Optional<Instant> instant(ResultSet row, String column) throws SQLException {
    return Optional.ofNullable(row.getObject(column, OffsetDateTime.class))
        .map(OffsetDateTime::toInstant);
  }
}
