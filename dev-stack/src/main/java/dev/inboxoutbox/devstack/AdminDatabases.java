package dev.inboxoutbox.devstack;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Creates and drops databases through an administrative connection. Shared by every PostgreSQL
 * server kind, since they differ only in how the server is reached.
 */
final class AdminDatabases {

  private static final Pattern SAFE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private static final String DUPLICATE_DATABASE = "42P04";
  private static final String UNIQUE_VIOLATION = "23505";
  private static final String DATABASE_NAME_INDEX = "pg_database_datname_index";

  private final DataSource admin;
  private final Function<String, String> jdbcUrlForDatabase;
  private final String username;
  private final String password;

  AdminDatabases(
      DataSource admin,
      Function<String, String> jdbcUrlForDatabase,
      String username,
      String password) {
    this.admin = admin;
    this.jdbcUrlForDatabase = jdbcUrlForDatabase;
    this.username = username;
    this.password = password;
  }

  Database createUnique() {
    String name = "iox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    create(name);
    return new Database(name, jdbcUrlForDatabase.apply(name), username, password, () -> drop(name));
  }

  /**
   * Instances started together ask for the same name at once: a database that appears between the
   * lookup and the CREATE counts as theirs too. The lookup only spares the server log an error on
   * every reuse, and lets a role without CREATEDB reuse a database made for it.
   */
  Database createOrReuse(String name) {
    String lowerName = name.toLowerCase(Locale.ROOT);
    requireSafe(lowerName);
    if (!exists(lowerName)) {
      createIfAbsent(lowerName);
    }
    return new Database(
        lowerName, jdbcUrlForDatabase.apply(lowerName), username, password, () -> {});
  }

  private boolean exists(String name) {
    try (Connection connection = admin.getConnection();
        PreparedStatement query =
            connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      query.setString(1, name);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next();
      }
    } catch (SQLException e) {
      throw new DevStackException("cannot look up database " + name, e);
    }
  }

  private void create(String name) {
    try {
      executeCreate(name);
    } catch (SQLException e) {
      throw cannotCreate(name, e);
    }
  }

  private void createIfAbsent(String name) {
    try {
      executeCreate(name);
    } catch (SQLException e) {
      if (!alreadyExists(e)) {
        throw cannotCreate(name, e);
      }
    }
  }

  private void executeCreate(String name) throws SQLException {
    requireSafe(name);
    try (Connection connection = admin.getConnection();
        Statement statement = connection.createStatement()) {
      // Identifiers cannot be bound as parameters; the name was checked against SAFE_NAME.
      statement.execute("CREATE DATABASE " + name);
    }
  }

  /**
   * 42P04 when the database was committed before this CREATE began; a unique violation on the
   * catalog's name index when two CREATE DATABASE commands overlapped and the other one won.
   */
  private static boolean alreadyExists(SQLException e) {
    if (DUPLICATE_DATABASE.equals(e.getSQLState())) {
      return true;
    }
    ServerErrorMessage server =
        e instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
    return UNIQUE_VIOLATION.equals(e.getSQLState())
        && server != null
        && DATABASE_NAME_INDEX.equals(server.getConstraint());
  }

  private static DevStackException cannotCreate(String name, SQLException e) {
    return new DevStackException(
        "cannot create database "
            + name
            + " (the dev stack needs a user allowed to CREATE DATABASE)",
        e);
  }

  private void drop(String name) {
    try (Connection connection = admin.getConnection()) {
      dropReplicationSlots(connection, name);
      try (Statement statement = connection.createStatement()) {
        statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    } catch (SQLException e) {
      throw new DevStackException("cannot drop database " + name, e);
    }
  }

  /**
   * Replication slots pin WAL and block DROP DATABASE; a relay under test may have left one, still
   * held by a walsender that takes a moment to exit once terminated.
   */
  private static void dropReplicationSlots(Connection connection, String database)
      throws SQLException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try (PreparedStatement terminate =
              connection.prepareStatement(
                  "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
                      + " WHERE database = ? AND active_pid IS NOT NULL");
          PreparedStatement dropInactive =
              connection.prepareStatement(
                  "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                      + " WHERE database = ? AND NOT active");
          PreparedStatement remaining =
              connection.prepareStatement(
                  "SELECT count(*) FROM pg_replication_slots WHERE database = ?")) {
        terminate.setString(1, database);
        terminate.execute();
        dropInactive.setString(1, database);
        dropInactive.execute();
        remaining.setString(1, database);
        try (ResultSet rows = remaining.executeQuery()) {
          rows.next();
          if (rows.getLong(1) == 0) {
            return;
          }
        }
      }
      if (System.nanoTime() > deadline) {
        throw new DevStackException("replication slots in " + database + " stayed active for 10 s");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DevStackException("interrupted while dropping replication slots", e);
      }
    }
  }

  private static void requireSafe(String name) {
    if (!SAFE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "database name must match " + SAFE_NAME.pattern() + "; was '" + name + "'");
    }
  }
}
