package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leading relay's view of a failover current: every {@link #INTERVAL} it assesses again
 * what a failover would cost ({@link FailoverReadiness}), reports the risks when they changed, and
 * logs a snapshot of the running transactions ({@code pg_log_standby_snapshot()}) while the
 * primary's standbys keep copies of its failover slot.
 *
 * <p>The assessment is repeated because a standby can attach while a run goes on: after a failover
 * the relay leads on the promoted node before the old primary is rebuilt as its standby.
 *
 * <p>A logical slot moves (its {@code restart_lsn} and {@code catalog_xmin}) only when its reader
 * decodes such a snapshot, and a slot whose decoding restarts where no serialized snapshot exists,
 * as on a freshly promoted standby, needs several of them to decode consistently at all. PostgreSQL
 * logs one every 15 s; a standby's copy of the slot, reserved at the standby's own position, lasts
 * through a promotion only once the primary's slot has passed that position. Under a load in which
 * some transaction is always open, that took a minute or more after each failover, during which a
 * second failover lost the slot. A snapshot record is a few bytes of WAL.
 */
final class FailoverWatch {

  private static final Logger log = LoggerFactory.getLogger(FailoverWatch.class);

  static final Duration INTERVAL = Duration.ofSeconds(2);

  private final FailoverReadiness readiness;
  private final Consumer<List<String>> risksChanged;
  private List<String> risks;
  private boolean loggingSnapshots;
  private Instant next = Instant.MIN;

  /**
   * @param risksChanged told the risks at the first check and whenever they change afterwards
   */
  FailoverWatch(String slotName, Consumer<List<String>> risksChanged) {
    this.readiness = new FailoverReadiness(slotName);
    this.risksChanged = risksChanged;
  }

  /** Assesses again and logs a snapshot when one is due; {@code connection} is the leader's. */
  void checkWhenDue(Connection connection) throws SQLException {
    Instant now = Instant.now();
    if (now.isBefore(next)) {
      return;
    }
    FailoverReadiness.Assessment assessment = readiness.assess(connection);
    if (!assessment.risks().equals(risks)) {
      risks = assessment.risks();
      risksChanged.accept(risks);
    }
    if (assessment.logStandbySnapshots() != loggingSnapshots) {
      loggingSnapshots = assessment.logStandbySnapshots();
      log.info(
          loggingSnapshots
              ? "logging a snapshot of the running transactions every {} for the standbys' copies"
                  + " of the relay's slot"
              : "no standby keeps a copy of the relay's slot: no more snapshots every {}",
          INTERVAL);
    }
    if (assessment.logStandbySnapshots()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SELECT pg_log_standby_snapshot()");
      }
    }
    next = now.plus(INTERVAL);
  }
}
