package dev.inboxoutbox.relay;

import java.util.Properties;
import org.postgresql.Driver;

/**
 * The relay's database as its JDBC URL names it. Debezium's connector takes host, port and database
 * apart while the offset store and the relay's own sessions take the URL, so both forms are kept.
 * The connector and the offset store also take user and password as settings of their own, which is
 * why one the builder leaves unset is read from the URL (else postgres and no password).
 */
record DatabaseAddress(
    String jdbcUrl, String host, int port, String database, String user, String password) {

  /**
   * Parses the URL with the PostgreSQL driver itself, so the relay reads it as the sessions it
   * opens will; of a multi-host URL the connector gets the first host.
   */
  static DatabaseAddress parse(String jdbcUrl, String user, String password) {
    RelaySettings.require(jdbcUrl, "jdbcUrl");
    Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
    if (parsed == null) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL: " + jdbcUrl);
    }
    String database = parsed.getProperty("PGDBNAME");
    if (database == null || database.isEmpty()) {
      throw new IllegalArgumentException("the JDBC URL names no database: " + jdbcUrl);
    }
    return new DatabaseAddress(
        jdbcUrl,
        parsed.getProperty("PGHOST", "localhost").split(",")[0],
        Integer.parseInt(parsed.getProperty("PGPORT", "5432").split(",")[0]),
        database,
        user != null ? user : parsed.getProperty("user", "postgres"),
        password != null ? password : parsed.getProperty("password", ""));
  }

  /**
   * Without the password, which a record's own toString would print, nor the URL that may hold it.
   */
  @Override
  public String toString() {
    return user + "@" + host + ":" + port + "/" + database;
  }
}
