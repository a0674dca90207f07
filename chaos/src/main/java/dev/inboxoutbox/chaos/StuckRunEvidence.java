package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What a run that did not go quiet leaves for the person reading its report: every service's
 * threads in its log, and PostgreSQL's sessions that are not idle. A consumer that stops consuming
 * is either blocked (on a lock, a call) or not given its partitions; these show which.
 */
final class StuckRunEvidence {

  static final String SESSIONS_FILE = "postgres-sessions.txt";

  private static final String SESSIONS =
      """
      SELECT pid, datname, application_name, client_port, state, wait_event_type, wait_event,
             pg_blocking_pids(pid) AS blocked_by,
             round(extract(epoch FROM now() - xact_start)) AS transaction_seconds,
             round(extract(epoch FROM now() - state_change)) AS in_state_seconds,
             left(regexp_replace(query, '\\s+', ' ', 'g'), 200) AS query
      FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()
      ORDER BY xact_start
      """;

  private StuckRunEvidence() {}

  static void collect(List<ServiceProcess> services, DataSource database, Path logs)
      throws IOException, InterruptedException {
    for (ServiceProcess service : services) {
      Optional<ProcessHandle> process = service.process().filter(ProcessHandle::isAlive);
      if (process.isPresent()) {
        dumpThreads(process.get());
      }
    }
    Files.write(logs.resolve(SESSIONS_FILE), sessions(database));
  }

  /**
   * Has a JVM print every thread's stack to its standard output, a service's log (SIGQUIT, as
   * {@code kill -3} does).
   */
  static void dumpThreads(ProcessHandle jvm) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-QUIT", Long.toString(jvm.pid()))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor();
  }

  static List<String> sessions(DataSource database) {
    List<String> lines = new ArrayList<>();
    try (Connection connection = database.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(SESSIONS)) {
      ResultSetMetaData columns = rows.getMetaData();
      while (rows.next()) {
        StringBuilder line = new StringBuilder();
        for (int column = 1; column <= columns.getColumnCount(); column++) {
          line.append(columns.getColumnLabel(column))
              .append('=')
              .append(rows.getString(column))
              .append(column < columns.getColumnCount() ? "  " : "");
        }
        lines.add(line.toString());
      }
      if (lines.isEmpty()) {
        lines.add("no session of a client was busy, waiting or in a transaction");
      }
    } catch (SQLException unreachable) {
      lines.add("PostgreSQL could not be asked for its sessions: " + unreachable.getMessage());
    }
    return lines;
  }
}
