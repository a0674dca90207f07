package dev.inboxoutbox.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description =
        "Inbox and outbox tables: counts by scope and status, latest rows, a key traced across services, relay lag.")
final class InspectCommand implements Callable<Integer> {
  @CommandLine.Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description =
          "Trace one idempotency key: its inbox rows, the outbox events it caused, and their downstream inbox rows.")
  String key;

  @Option(
      names = "--downstream-jdbc-url",
      paramLabel = "JDBC_URL",
      description = "Database of the next service, for --key.")
  String downstream;

  @Option(
      names = "--latest",
      paramLabel = "ROWS",
      defaultValue = "10",
      description = "Latest inbox and outbox rows to show (default ${DEFAULT-VALUE}).")
  int latest;

  @Override
  public Integer call() throws SQLException {
    try (Connection c = db.connect()) {
      print(
          c,
          "inbox by scope and status",
          "SELECT tenant, principal, operation, status, count(*) AS keys FROM inbox GROUP BY 1, 2, 3, 4 ORDER BY 3, 4");
      print(
          c,
          "outbox by aggregate type and type",
          "SELECT aggregatetype, type, count(*) AS events, count(*) FILTER (WHERE published_at IS NULL) AS unpublished"
              + " FROM outbox GROUP BY 1, 2 ORDER BY 1, 2");
      print(
          c,
          "latest inbox rows",
          "SELECT operation, idempotency_key, status, outcome_code, left(outcome_body::text, 60) AS outcome, created_at"
              + " FROM inbox ORDER BY created_at DESC LIMIT "
              + latest);
      print(
          c,
          "latest outbox rows",
          "SELECT id, aggregatetype, aggregateid, type, causation_id, created_at, published_at FROM outbox"
              + " ORDER BY created_at DESC LIMIT "
              + latest);
      print(
          c,
          "relay lag",
          "SELECT slot_name, active, pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) AS lag_bytes,"
              + " (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS unpublished_rows,"
              + " (SELECT now() - min(created_at) FROM outbox WHERE published_at IS NULL) AS oldest_unpublished"
              + " FROM pg_replication_slots WHERE database = current_database()");
      if (key != null) {
        print(
            c,
            "inbox rows for key " + key,
            "SELECT operation, status, request_hash, outcome_code, outcome_body, created_at, expires_at FROM inbox WHERE idempotency_key = ?",
            key);
        print(
            c,
            "outbox events caused by " + key,
            "SELECT id, aggregatetype, aggregateid, type, published_at FROM outbox WHERE causation_id = ?",
            key);
        if (downstream != null) {
          DatabaseOptions next = new DatabaseOptions();
          next.url = downstream;
          next.user = db.user;
          next.password = db.password;
          try (Connection d = next.connect();
              PreparedStatement ids =
                  c.prepareStatement("SELECT id::text FROM outbox WHERE causation_id = ?")) {
            ids.setString(1, key);
            try (ResultSet rows = ids.executeQuery()) {
              while (rows.next()) {
                String eventId = rows.getString(1);
                print(
                    d,
                    "downstream inbox for event " + eventId,
                    "SELECT operation, status, outcome_body, created_at FROM inbox WHERE idempotency_key = ?",
                    eventId);
                print(
                    d,
                    "downstream outbox caused by event " + eventId,
                    "SELECT id, aggregatetype, type, published_at FROM outbox WHERE causation_id = ?",
                    eventId);
              }
            }
          }
        }
      }
    }
    return 0;
  }

  private static void print(Connection connection, String title, String sql, String... parameters)
      throws SQLException {
    System.out.println("== " + title);
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        ResultSetMetaData meta = rows.getMetaData();
        StringBuilder header = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          header.append(String.format("%-24s", meta.getColumnLabel(i)));
        }
        System.out.println(header.toString().stripTrailing());
        int n = 0;
        while (rows.next()) {
          StringBuilder line = new StringBuilder();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            line.append(String.format("%-24s", String.valueOf(rows.getObject(i))));
          }
          System.out.println(line.toString().stripTrailing());
          n++;
        }
        if (n == 0) {
          System.out.println("(none)");
        }
      }
    }
    System.out.println();
  }
}
