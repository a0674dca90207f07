package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
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
 *
 * <p>The slot's {@code catalog_xmin} moves only at a snapshot taken while none of the transactions
 * it decoded is open: each of them shares the catalog snapshot the decoder took at its last catalog
 * change, older than the standby's reservation. Under a load that keeps one open at every snapshot
 * (two overlapping writers were enough) the standby's copy then waited for the next catalog change,
 * and PostgreSQL's own snapshots every 15 s did not help. So for {@link #REFRESH_WINDOW} after a
 * run starts or a standby connects, a watch that sees the slot's {@code restart_lsn} move and its
 * {@code catalog_xmin} held commits a catalog change right after its snapshot: a temporary table
 * dropped at commit. Transactions begun after it take a fresh catalog snapshot, and the next
 * snapshot moves {@code catalog_xmin}. It commits one at once when a standby connects, whose copy
 * is reserved about then. Past the window a standby's copy has lasted, and the watch leaves the
 * catalogs alone.
 */
final class FailoverWatch {

  private static final Logger log = LoggerFactory.getLogger(FailoverWatch.class);

  static final Duration INTERVAL = Duration.ofSeconds(2);

  /** How long after a run's start or a standby's connection a held catalog_xmin is refreshed. */
  static final Duration REFRESH_WINDOW = Duration.ofSeconds(60);

  private static final String CATALOG_CHANGE_SQL =
      "CREATE TEMPORARY TABLE iox_relay_catalog_change () ON COMMIT DROP";

  private final String slotName;
  private final FailoverReadiness readiness;
  private final Consumer<List<String>> risksChanged;
  private List<String> risks;
  private boolean loggingSnapshots;
  private Instant next = Instant.MIN;
  private String newestStandbySince;
  private Instant refreshUntil = Instant.MIN;
  private FailoverReadiness.SlotHorizon slotBefore;

  /**
   * @param risksChanged told the risks at the first check and whenever they change afterwards
   */
  FailoverWatch(String slotName, Consumer<List<String>> risksChanged) {
    this.slotName = slotName;
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
    boolean standbysChanged = !Objects.equals(assessment.newestStandbySince(), newestStandbySince);
    if (standbysChanged) {
      newestStandbySince = assessment.newestStandbySince();
      refreshUntil = now.plus(REFRESH_WINDOW);
    }
    if (assessment.logStandbySnapshots()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SELECT pg_log_standby_snapshot()");
        if (assessment.mayRefreshCatalogSnapshot()
            && now.isBefore(refreshUntil)
            && (standbysChanged || assessment.slot().catalogXminHeldSince(slotBefore))) {
          log.debug(
              "committing a catalog change for slot {} (catalog_xmin {})",
              slotName,
              assessment.slot().catalogXmin());
          statement.execute(CATALOG_CHANGE_SQL);
        }
      }
    }
    slotBefore = assessment.slot();
    next = now.plus(INTERVAL);
  }
}
