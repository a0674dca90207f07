package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.OperatorError;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.json.JsonMapper;

@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Inbox and outbox tables: counts by scope and status, latest rows, a key traced across services, relay lag;"
          + " with --bootstrap, which consumer holds which partitions.",
      "Prints the database it reads first. Exit code 2 when the database cannot be reached or refuses"
          + " the login, or the brokers cannot be reached."
    })
public final class InspectCommand implements Callable<Integer> {
  @CommandLine.Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description =
          "Trace one idempotency key: its inbox rows, the outbox events it caused, and their downstream inbox rows.")
  String key;

  @Option(
      names = "--trace",
      paramLabel = "ID",
      description =
          "One order's path across services as a tree, from an idempotency key, an event id or an"
              + " aggregate id (an order id): the claims of each key, the events it caused, and"
              + " where each event was claimed next, in this database and every"
              + " --downstream-jdbc-url.")
  String trace;

  @Option(
      names = "--downstream-jdbc-url",
      paramLabel = "JDBC_URL",
      description =
          "Database of another service, for --key and --trace; same user and password;"
              + " repeatable (default: none).")
  List<String> downstream = new ArrayList<>();

  @Option(
      names = "--latest",
      paramLabel = "ROWS",
      defaultValue = "10",
      description = "Latest inbox and outbox rows to show (default ${DEFAULT-VALUE}).")
  int latest;

  @Option(
      names = "--json",
      description =
          "One JSON object for scripts: the database and, per section, its rows as objects.")
  boolean json;

  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      description =
          "Kafka bootstrap servers: adds each consumer group's members and the partitions each"
              + " holds (default: Kafka is not asked).")
  String bootstrap;

  @Option(
      names = "--group",
      paramLabel = "GROUP",
      description =
          "Consumer group to describe, for --bootstrap; repeatable (default: the inbox's"
              + " operations, each the group of its consumer).")
  List<String> groups = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** One titled result: column names and rows of values as JDBC returned them. */
  record Section(String title, List<String> columns, List<List<Object>> rows) {}

  @Override
  public Integer call() {
    if (latest < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--latest must not be negative, was " + latest);
    }
    if (!groups.isEmpty() && bootstrap == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--group needs --bootstrap: the groups are described by Kafka");
    }
    List<Section> sections = read();
    List<CausalTrace.Node> traced = trace == null ? null : readTrace();
    if (json) {
      printJson(sections, traced, System.out);
    } else {
      printText(sections, System.out);
      if (traced != null) {
        System.out.println("== trace of " + trace);
        CausalTrace.print(traced, System.out);
      }
    }
    return 0;
  }

  /** The trees of {@code --trace}, over this database and the downstream ones. */
  List<CausalTrace.Node> readTrace() {
    Map<String, Connection> databases = new LinkedHashMap<>();
    List<DatabaseOptions> all = new ArrayList<>();
    all.add(db);
    downstream.stream().map(this::sameLogin).forEach(all::add);
    try {
      for (DatabaseOptions options : all) {
        String label = databaseName(options.url);
        while (databases.containsKey(label)) {
          label = label + "'";
        }
        databases.put(label, connect(options));
      }
      return CausalTrace.of(trace, databases);
    } catch (SQLException e) {
      throw new OperatorError("tracing " + trace + " failed: " + oneLine(e), e);
    } finally {
      databases.values().forEach(InspectCommand::closeQuietly);
    }
  }

  /** The database's name in its JDBC URL: what the trace labels its rows with. */
  static String databaseName(String jdbcUrl) {
    String path = jdbcUrl.replaceFirst("\\?.*", "");
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private DatabaseOptions sameLogin(String url) {
    DatabaseOptions next = new DatabaseOptions();
    next.url = url;
    next.user = db.user;
    next.password = db.password;
    return next;
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // Only read from: nothing is lost with it.
    }
  }

  List<Section> read() {
    List<Section> sections = new ArrayList<>();
    Section byScope;
    try (Connection c = connect(db)) {
      byScope =
          query(
              c,
              "inbox by scope and status",
              """
              SELECT tenant, principal, operation, status, count(*) AS keys
              FROM inbox GROUP BY 1, 2, 3, 4 ORDER BY 3, 4""");
      sections.add(byScope);
      sections.add(
          query(
              c,
              "outbox by aggregate type and type",
              """
              SELECT aggregatetype, type, count(*) AS events,
                     count(*) FILTER (WHERE published_at IS NULL) AS unpublished
              FROM outbox GROUP BY 1, 2 ORDER BY 1, 2"""));
      sections.add(
          query(
              c,
              "latest inbox rows",
              """
              SELECT operation, idempotency_key, status, outcome_code,
                     left(outcome_body::text, 60) AS outcome, created_at
              FROM inbox ORDER BY created_at DESC LIMIT ?""",
              latest));
      sections.add(
          query(
              c,
              "latest outbox rows",
              """
              SELECT id, aggregatetype, aggregateid, type, causation_id, created_at, published_at
              FROM outbox ORDER BY created_at DESC LIMIT ?""",
              latest));
      sections.add(
          query(
              c,
              "relay lag",
              """
              SELECT slot_name, active,
                     pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) AS lag_bytes,
                     (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS unpublished_rows,
                     (SELECT now() - min(created_at) FROM outbox WHERE published_at IS NULL)
                       AS oldest_unpublished
              FROM pg_replication_slots WHERE database = current_database()"""));
      if (key != null) {
        traceKey(c, sections);
      }
    } catch (SQLException e) {
      throw new OperatorError("reading " + db.describe() + " failed: " + oneLine(e), e);
    }
    if (bootstrap != null) {
      sections.add(
          new Section(
              "consumer group members",
              ConsumerGroupMembers.COLUMNS,
              ConsumerGroupMembers.describe(bootstrap, groupsToDescribe(byScope))));
    }
    return sections;
  }

  /** The groups named by --group, else the inbox's operations: each is its consumer's group. */
  private List<String> groupsToDescribe(Section byScope) {
    if (!groups.isEmpty()) {
      return groups;
    }
    int operation = byScope.columns().indexOf("operation");
    return byScope.rows().stream().map(row -> String.valueOf(row.get(operation))).toList();
  }

  private void traceKey(Connection c, List<Section> sections) throws SQLException {
    sections.add(
        query(
            c,
            "inbox rows for key " + key,
            """
            SELECT operation, status, request_hash, outcome_code, outcome_body, created_at,
                   expires_at
            FROM inbox WHERE idempotency_key = ?""",
            key));
    Section caused =
        query(
            c,
            "outbox events caused by " + key,
            """
            SELECT id, aggregatetype, aggregateid, type, published_at
            FROM outbox WHERE causation_id = ?""",
            key);
    sections.add(caused);
    for (String url : downstream) {
      traceKeyDownstream(sameLogin(url), caused, sections);
    }
  }

  private void traceKeyDownstream(DatabaseOptions next, Section caused, List<Section> sections) {
    try (Connection d = connect(next)) {
      for (List<Object> event : caused.rows()) {
        String eventId = String.valueOf(event.get(0));
        sections.add(
            query(
                d,
                "downstream inbox for event " + eventId,
                """
                SELECT operation, status, outcome_body, created_at
                FROM inbox WHERE idempotency_key = ?""",
                eventId));
        sections.add(
            query(
                d,
                "downstream outbox caused by event " + eventId,
                """
                SELECT id, aggregatetype, type, published_at
                FROM outbox WHERE causation_id = ?""",
                eventId));
      }
    } catch (SQLException e) {
      throw new OperatorError("reading " + next.describe() + " failed: " + oneLine(e), e);
    }
  }

  /** Connects, turning a refused connection or login into the one line an operator needs. */
  private static Connection connect(DatabaseOptions options) {
    try {
      return options.connect();
    } catch (SQLException e) {
      throw new OperatorError("cannot connect to " + options.describe() + ": " + oneLine(e), e);
    }
  }

  /** The driver's message and SQL state, without the stack or a wrapped cause's repetition. */
  private static String oneLine(SQLException e) {
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
    return e.getSQLState() == null ? message : message + " (SQL state " + e.getSQLState() + ")";
  }

  private static Section query(Connection connection, String title, String sql, Object... params)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        statement.setObject(i + 1, params[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        ResultSetMetaData meta = rows.getMetaData();
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          columns.add(meta.getColumnLabel(i));
        }
        List<List<Object>> values = new ArrayList<>();
        while (rows.next()) {
          List<Object> row = new ArrayList<>();
          for (int i = 1; i <= columns.size(); i++) {
            Object value = rows.getObject(i);
            // JSON and interval columns arrive as driver objects; their text is what a reader
            // wants.
            row.add(
                value == null || value instanceof Number || value instanceof Boolean
                    ? value
                    : rows.getString(i));
          }
          values.add(row);
        }
        return new Section(title, columns, values);
      }
    }
  }

  private void printText(List<Section> sections, PrintStream out) {
    out.println("database " + db.describe());
    if (bootstrap != null) {
      out.println("kafka " + bootstrap);
    }
    out.println();
    for (Section section : sections) {
      out.println("== " + section.title());
      TextTable table = new TextTable(section.columns());
      section.rows().forEach(table::add);
      table.print(out);
      out.println();
    }
  }

  private void printJson(List<Section> sections, List<CausalTrace.Node> traced, PrintStream out) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("database", db.url);
    document.put("user", db.user);
    if (bootstrap != null) {
      document.put("kafka", bootstrap);
    }
    Map<String, Object> bySection = new LinkedHashMap<>();
    for (Section section : sections) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (List<Object> row : section.rows()) {
        Map<String, Object> object = new LinkedHashMap<>();
        for (int i = 0; i < section.columns().size(); i++) {
          object.put(section.columns().get(i), row.get(i));
        }
        rows.add(object);
      }
      bySection.put(section.title(), rows);
    }
    document.put("sections", bySection);
    if (traced != null) {
      document.put("trace", traced);
    }
    out.println(
        JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(document));
  }
}
