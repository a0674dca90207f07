package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The write the engine runs at every heartbeat ({@code heartbeat.action.query}), into the table
 * {@code iox_relay_heartbeat} that sits beside the outbox table and belongs to the publication.
 *
 * <p>A heartbeat carries the position of the last commit the engine received, and a slot decodes
 * only its own database: WAL written by other databases, or (from PostgreSQL 15 on, which sends
 * nothing for a transaction that touched no published table) by other tables, never reaches the
 * engine. While the outbox is quiet the slot would hold all of it. The heartbeat's own insert is
 * published, so the next heartbeat carries a commit past that WAL and the slot is confirmed there.
 * The connector captures the outbox table only, so the inserted rows never become events.
 */
final class RelayHeartbeat {

  static final String TABLE_NAME = "iox_relay_heartbeat";

  private static final String CHECK_SQL =
      """
      SELECT to_regclass(?) IS NOT NULL AS present,
             EXISTS (SELECT 1 FROM pg_publication_tables
                     WHERE pubname = ? AND schemaname = ? AND tablename = ?) AS published,
             coalesce(has_table_privilege(to_regclass(?), 'INSERT')
                      AND has_table_privilege(to_regclass(?), 'SELECT')
                      AND has_table_privilege(to_regclass(?), 'DELETE'), false) AS writable
      """;

  private final String schema;
  private final String table;
  private final String slotName;
  private final String publicationName;

  RelayHeartbeat(RelaySettings settings) {
    this.schema = settings.outboxTable().substring(0, settings.outboxTable().indexOf('.'));
    this.table = schema + "." + TABLE_NAME;
    this.slotName = settings.slotName();
    this.publicationName = settings.publicationName();
  }

  /**
   * One statement, so one short transaction: the DELETE does not see the row its own WITH inserts,
   * so the newest beat of this slot stays and the table never grows. The slot name is a validated
   * identifier, so it can stand as a literal.
   */
  String actionQuery() {
    return """
        WITH beat AS (INSERT INTO %1$s (slot_name) VALUES ('%2$s')) \
        DELETE FROM %1$s WHERE slot_name = '%2$s'"""
        .formatted(table, slotName);
  }

  /**
   * What keeps the heartbeat from moving the slot, as the fix a DBA applies; empty when nothing.
   */
  List<String> problems(Connection connection) throws SQLException {
    try (PreparedStatement check = connection.prepareStatement(CHECK_SQL)) {
      check.setString(1, table);
      check.setString(2, publicationName);
      check.setString(3, schema);
      check.setString(4, TABLE_NAME);
      check.setString(5, table);
      check.setString(6, table);
      check.setString(7, table);
      try (ResultSet row = check.executeQuery()) {
        row.next();
        List<String> problems = new ArrayList<>();
        if (!row.getBoolean("present")) {
          problems.add("table " + table + " is missing: apply the inbox-outbox migrations (V3)");
          return problems;
        }
        if (!row.getBoolean("published")) {
          problems.add("ALTER PUBLICATION " + publicationName + " ADD TABLE " + table);
        }
        if (!row.getBoolean("writable")) {
          problems.add("GRANT SELECT, INSERT, DELETE ON " + table + " TO <the relay's role>");
        }
        return problems;
      }
    }
  }
}
