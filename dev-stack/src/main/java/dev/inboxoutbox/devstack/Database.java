package dev.inboxoutbox.devstack;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.PGProperty;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One PostgreSQL database made for one test class, chaos run or local run. Closing it drops the
 * database (and the replication slots left in it), so nothing outlives its user.
 */
public final class Database implements AutoCloseable {

  private final String name;
  private final String jdbcUrl;
  private final String username;
  private final String password;
  private final Runnable dropper;

  Database(String name, String jdbcUrl, String username, String password, Runnable dropper) {
    this.name = Objects.requireNonNull(name);
    this.jdbcUrl = Objects.requireNonNull(jdbcUrl);
    this.username = Objects.requireNonNull(username);
    this.password = Objects.requireNonNull(password);
    this.dropper = Objects.requireNonNull(dropper);
  }

  public String name() {
    return name;
  }

  public String jdbcUrl() {
    return jdbcUrl;
  }

  public String username() {
    return username;
  }

  public String password() {
    return password;
  }

  /** An unpooled data source: every {@code getConnection()} opens a new session. */
  public DataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(jdbcUrl);
    dataSource.setUser(username);
    dataSource.setPassword(password);
    return dataSource;
  }

  public Connection connect() throws SQLException {
    return dataSource().getConnection();
  }

  /**
   * A session in logical replication mode, for PgJDBC's replication API ({@code
   * PGConnection.getReplicationAPI()}): a reader of a slot, as Debezium's connector is.
   */
  public Connection connectForReplication() throws SQLException {
    Properties properties = new Properties();
    PGProperty.USER.set(properties, username);
    PGProperty.PASSWORD.set(properties, password);
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "9.4"); // or no replication mode
    PGProperty.REPLICATION.set(properties, "database");
    PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
    return DriverManager.getConnection(jdbcUrl, properties);
  }

  /**
   * Makes every later session of this database wait for its commit's WAL write, as PostgreSQL does
   * by default: the dev stack's server runs with {@code synchronous_commit=off}, under which a
   * crash of the server takes back commits it already acknowledged.
   */
  public void commitsSurviveServerCrashes() throws SQLException {
    try (Connection connection = connect();
        java.sql.Statement statement = connection.createStatement()) {
      statement.execute("ALTER DATABASE \"" + name + "\" SET synchronous_commit = on");
    }
  }

  @Override
  public void close() {
    dropper.run();
  }

  @Override
  public String toString() {
    return "Database[" + jdbcUrl + " as " + username + "]";
  }
}
