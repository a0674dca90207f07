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

/**
 * Creates and drops databases through an administrative connection. Shared by every PostgreSQL
 * server kind, since they differ only in how the server is reached.
 */
final class AdminDatabases {

  private static final Pattern SAFE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private final DataSource admin;
  private final Function<String, String> jdbcUrlForDatabase;
  private final String username;
  private final String password;

  AdminDatabases(
      DataSource admin, Function<String, String> jdbcUrlForDatabase, String username, String password) {
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

  Database createOrReuse(String name) {
    String lowerName = name.toLowerCase(Locale.ROOT);
    requireSafe(lowerName);
    if (!exists(lowerName)) {
      create(lowerName);
    }
    return new Database(lowerName, jdbcUrlForDatabase.apply(lowerName), username, password, () -> {});
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
    requireSafe(name);
    try (Connection connection = admin.getConnection();
        Statement statement = connection.createStatement()) {
      // Identifiers cannot be bound as parameters; the name was checked against SAFE_NAME.
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new DevStackException(
          "cannot create database " + name + " (the dev stack needs a user allowed to CREATE DATABASE)",
          e);
    }
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
