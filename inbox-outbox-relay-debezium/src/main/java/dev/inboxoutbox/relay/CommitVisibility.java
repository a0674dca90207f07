package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a batch back until other sessions can see the transactions it came from.
 *
 * <p>PostgreSQL flushes a commit to the WAL, where logical decoding reads it, a moment before the
 * transaction leaves the proc array and becomes visible; for as long as the commit waits for a
 * synchronous standby, if one is configured. An event published in that moment can reach a consumer
 * that reads the producing service's tables and finds nothing of what the event announces (a
 * payment the charge request names), and the relay's stamp finds no row to mark published.
 */
final class CommitVisibility {

  private static final Logger log = LoggerFactory.getLogger(CommitVisibility.class);

  private static final Duration WARN_AFTER = Duration.ofSeconds(5);
  private static final long MAX_PAUSE_MILLIS = 100;

  /**
   * What the current snapshot cannot see: every transaction from {@code xmax} on and those {@code
   * running}, as the 32-bit ids the WAL carries.
   */
  private static final String SNAPSHOT_SQL =
      """
      SELECT pg_snapshot_xmax(snapshot)::text::bigint % 4294967296 AS xmax,
             array(SELECT running::text::bigint % 4294967296
                     FROM pg_snapshot_xip(snapshot) AS running) AS running
        FROM pg_current_snapshot() AS snapshot""";

  private final Connection session;

  CommitVisibility(Connection session) {
    this.session = session;
  }

  /**
   * Returns once every one of {@code transactions}, all committed in the WAL, is visible; checks
   * again after 1 ms, doubling to 100 ms, and warns once after 5 s.
   */
  void await(Set<Long> transactions) throws SQLException, InterruptedException {
    long started = System.nanoTime();
    long pauseMillis = 1;
    boolean warned = false;
    for (Set<Long> invisible = invisible(transactions);
        !invisible.isEmpty();
        invisible = invisible(transactions)) {
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      if (!warned && waited.compareTo(WARN_AFTER) >= 0) {
        warned = true;
        log.warn(
            "transactions {} are committed in the WAL but other sessions have not seen them for"
                + " {} (a commit waiting for a synchronous standby, say); their events are"
                + " published once they can",
            invisible,
            waited);
      }
      Thread.sleep(pauseMillis);
      pauseMillis = Math.min(pauseMillis * 2, MAX_PAUSE_MILLIS);
    }
  }

  private Set<Long> invisible(Set<Long> transactions) throws SQLException {
    try (Statement statement = session.createStatement();
        ResultSet row = statement.executeQuery(SNAPSHOT_SQL)) {
      row.next();
      long xmax = row.getLong("xmax");
      Set<Long> running = new HashSet<>();
      for (Object xid : (Object[]) row.getArray("running").getArray()) {
        running.add(((Number) xid).longValue());
      }
      return invisible(transactions, xmax, running);
    }
  }

  /**
   * Those of {@code transactions} a snapshot with {@code xmax} and {@code running} cannot see.
   * 32-bit ids wrap around: "from xmax on" is the half of the circle ahead of {@code xmax}.
   */
  static Set<Long> invisible(Set<Long> transactions, long xmax, Set<Long> running) {
    Set<Long> invisible = new HashSet<>();
    for (long transaction : transactions) {
      if ((int) (transaction - xmax) >= 0 || running.contains(transaction)) {
        invisible.add(transaction);
      }
    }
    return invisible;
  }
}
