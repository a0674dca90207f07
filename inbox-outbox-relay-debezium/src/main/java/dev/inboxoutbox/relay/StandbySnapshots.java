package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;

/**
 * Logs a snapshot of the running transactions ({@code pg_log_standby_snapshot()}) every {@link
 * #INTERVAL} while the relay leads on a primary whose standbys keep copies of its failover slot.
 *
 * <p>A logical slot moves (its {@code restart_lsn} and {@code catalog_xmin}) only when its reader
 * decodes such a snapshot, and a slot whose decoding restarts where no serialized snapshot exists,
 * as on a freshly promoted standby, needs several of them to decode consistently at all. PostgreSQL
 * logs one every 15 s; a standby's copy of the slot, reserved at the standby's own position, lasts
 * through a promotion only once the primary's slot has passed that position. Under a load in which
 * some transaction is always open, that took a minute or more after each failover, during which a
 * second failover lost the slot. A snapshot record is a few bytes of WAL.
 */
final class StandbySnapshots {

  static final Duration INTERVAL = Duration.ofSeconds(2);

  private final boolean enabled;
  private Instant next = Instant.MIN;

  StandbySnapshots(boolean enabled) {
    this.enabled = enabled;
  }

  /** Logs a snapshot on {@code connection} when one is due; nothing when not enabled. */
  void logWhenDue(Connection connection) throws SQLException {
    Instant now = Instant.now();
    if (!enabled || now.isBefore(next)) {
      return;
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_log_standby_snapshot()");
    }
    next = now.plus(INTERVAL);
  }
}
