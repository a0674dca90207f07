package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** Reads {@link RelayLag}: the unpublished outbox rows and the WAL the slot still holds. */
final class LagQuery {

  private LagQuery() {}

  /** {@code outboxTable} is a validated, schema-qualified name, so it can stand in the SQL. */
  static RelayLag measure(Connection connection, String outboxTable, String slotName)
      throws SQLException {
    String sql =
        """
        SELECT (SELECT extract(epoch FROM now() - min(created_at)) FROM %1$s
                WHERE published_at IS NULL) AS oldest_seconds,
               (SELECT count(*) FROM %1$s WHERE published_at IS NULL) AS unpublished,
               (SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint
                FROM pg_replication_slots WHERE slot_name = ?) AS slot_lag
        """
            .formatted(outboxTable);
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, slotName);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        double oldestSeconds = row.getDouble("oldest_seconds");
        Optional<Duration> oldest =
            row.wasNull()
                ? Optional.empty()
                : Optional.of(Duration.ofMillis(Math.round(oldestSeconds * 1000)));
        long unpublished = row.getLong("unpublished");
        long slotLag = row.getLong("slot_lag");
        return new RelayLag(
            oldest, unpublished, row.wasNull() ? OptionalLong.empty() : OptionalLong.of(slotLag));
      }
    }
  }
}
