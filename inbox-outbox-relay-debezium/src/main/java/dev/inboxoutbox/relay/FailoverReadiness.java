package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a failover of the relay's database to a standby would cost, read from the primary at every
 * run's start and every few seconds while it runs: said in the log and in {@link
 * RelayStatus#failoverRisks()}.
 *
 * <p>Before PostgreSQL 17 a logical slot lives on the primary only. From 17 on, a slot created with
 * {@code failover = true} (the relay asks Debezium for one: {@code slot.failover}) is copied to
 * standbys that run {@code sync_replication_slots}, and a primary with {@code
 * synchronized_standby_slots} sends logical changes only once those standbys have the WAL: without
 * it the relay can publish an event whose transaction the promoted standby never received.
 *
 * <p>A standby's copy of a failover slot survives a promotion only once the primary's slot has
 * moved past what the standby reserved for it, and the slot moves only at logged snapshots of the
 * running transactions (see {@link FailoverWatch}); a relay that may not log them says so.
 */
final class FailoverReadiness {

  private static final String CHECK_SQL =
      """
      WITH standby AS (
        SELECT r.backend_start FROM pg_stat_replication r JOIN pg_stat_activity a USING (pid)
         WHERE a.datname IS NULL)
      SELECT current_setting('server_version_num')::int AS version,
             current_setting('server_version') AS version_name,
             current_setting('synchronized_standby_slots', true) AS standby_slots,
             to_jsonb(s) ->> 'failover' AS slot_failover,
             s.restart_lsn::text AS slot_restart_lsn,
             s.catalog_xmin::text AS slot_catalog_xmin,
             EXISTS (SELECT 1 FROM standby)
               OR EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_type = 'physical')
               AS has_standby,
             (SELECT max(backend_start) FROM standby)::text AS newest_standby_since,
             CASE WHEN to_regprocedure('pg_log_standby_snapshot()') IS NULL THEN false
                  ELSE has_function_privilege('pg_log_standby_snapshot()', 'EXECUTE')
             END AS may_log_snapshots,
             has_database_privilege(current_database(), 'TEMPORARY') AS may_create_temp,
             current_database() AS database
        FROM (SELECT 1) one
        LEFT JOIN pg_replication_slots s ON s.slot_name = ?
      """;

  private final String slotName;

  FailoverReadiness(String slotName) {
    this.slotName = slotName;
  }

  /**
   * What a failover would lose or publish wrongly, and whether the relay should log snapshots of
   * the running transactions. No risks on a server that streams to no standby (nothing to fail over
   * to, or replication below PostgreSQL, as managed databases that replicate their storage do).
   * {@code pg_stat_replication} lists logical walsenders too (the relay's own reader, any logical
   * subscriber), from their start on: they are connected to a database, a standby's walsender is
   * not.
   */
  Assessment assess(Connection connection) throws SQLException {
    try (PreparedStatement check = connection.prepareStatement(CHECK_SQL)) {
      check.setString(1, slotName);
      try (ResultSet row = check.executeQuery()) {
        row.next();
        List<String> risks = new ArrayList<>();
        SlotHorizon slot =
            new SlotHorizon(row.getString("slot_restart_lsn"), row.getString("slot_catalog_xmin"));
        if (!row.getBoolean("has_standby")) {
          return new Assessment(risks, false, false, slot, null);
        }
        if (row.getInt("version") < 170000) {
          risks.add(
              "PostgreSQL "
                  + row.getString("version_name")
                  + " keeps slot "
                  + slotName
                  + " on the primary only: after a failover the promoted standby has no slot, and"
                  + " outbox rows written before a new one exists are never relayed (PostgreSQL 17"
                  + " carries failover slots over)");
          return new Assessment(risks, false, false, slot, null);
        }
        boolean failoverSlot = !"false".equals(row.getString("slot_failover"));
        if (!failoverSlot) {
          risks.add(
              "slot "
                  + slotName
                  + " is not a failover slot: a standby does not keep a copy of it. Drop it while"
                  + " no relay runs (the next leader creates it with failover = true) or alter it"
                  + " with ALTER_REPLICATION_SLOT "
                  + slotName
                  + " (FAILOVER true)");
        }
        String standbySlots = row.getString("standby_slots");
        if (standbySlots == null || standbySlots.isBlank()) {
          risks.add(
              "synchronized_standby_slots is empty: the primary sends outbox rows to the relay"
                  + " before a standby has them, so after a failover the relay may have published"
                  + " events whose transactions the promoted standby never received; set it to the"
                  + " standbys' physical slots");
        }
        boolean mayLogSnapshots = row.getBoolean("may_log_snapshots");
        if (failoverSlot && !mayLogSnapshots) {
          risks.add(
              "the relay may not log snapshots of the running transactions, so after a failover"
                  + " or a restart a standby's copy of slot "
                  + slotName
                  + " can take minutes to survive a promotion, and a failover meanwhile loses the"
                  + " slot; GRANT EXECUTE ON FUNCTION pg_log_standby_snapshot() TO <the relay's"
                  + " role>");
        }
        boolean mayCreateTemp = row.getBoolean("may_create_temp");
        if (failoverSlot && mayLogSnapshots && !mayCreateTemp) {
          risks.add(
              "the relay may not create a temporary table, so under a load that keeps a"
                  + " transaction open at every snapshot a new standby's copy of slot "
                  + slotName
                  + " waits for a catalog change before it survives a promotion, and a failover"
                  + " meanwhile loses the slot; GRANT TEMPORARY ON DATABASE "
                  + row.getString("database")
                  + " TO <the relay's role>");
        }
        return new Assessment(
            risks,
            failoverSlot && mayLogSnapshots,
            failoverSlot && mayLogSnapshots && mayCreateTemp,
            slot,
            row.getString("newest_standby_since"));
      }
    }
  }

  /**
   * @param risks what a failover would cost, as a DBA's fix where there is one
   * @param logStandbySnapshots whether the relay keeps the standbys' copies of its slot current by
   *     logging snapshots of the running transactions
   * @param mayRefreshCatalogSnapshot whether the relay may also commit a catalog change (a
   *     temporary table) for its slot's decoder to take a fresh catalog snapshot
   * @param slot where the slot stands now; its fields are null before the slot exists
   * @param newestStandbySince when the most recently connected standby connected; null without one
   */
  record Assessment(
      List<String> risks,
      boolean logStandbySnapshots,
      boolean mayRefreshCatalogSnapshot,
      SlotHorizon slot,
      String newestStandbySince) {
    Assessment {
      risks = List.copyOf(risks);
    }
  }

  /**
   * What a slot holds back: WAL from {@code restartLsn} on, catalog rows from {@code catalogXmin}.
   */
  record SlotHorizon(String restartLsn, String catalogXmin) {

    /**
     * Whether, since {@code before}, the slot's {@code restart_lsn} moved and its {@code
     * catalog_xmin} did not: its decoder confirms snapshots, but every transaction it decoded since
     * its last catalog change shares that change's catalog snapshot, and some such transaction was
     * open at each snapshot.
     */
    boolean catalogXminHeldSince(SlotHorizon before) {
      return before != null
          && restartLsn != null
          && catalogXmin != null
          && !restartLsn.equals(before.restartLsn)
          && catalogXmin.equals(before.catalogXmin);
    }
  }
}
