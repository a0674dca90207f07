package dev.inboxoutbox.tools;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Option;

/** Connection options shared by inspect and retention. */
class DatabaseOptions {
  /** The order-consumer's database of the local dev stack ({@code DevStackMain}, port 15432). */
  static final String DEV_STACK_URL = "jdbc:postgresql://localhost:15432/order_consumer";

  @Option(
      names = "--jdbc-url",
      paramLabel = "JDBC_URL",
      defaultValue = "${env:IOX_JDBC_URL:-" + DEV_STACK_URL + "}",
      description =
          "Database to read, else IOX_JDBC_URL, else the local dev stack's order-consumer"
              + " database (default ${DEFAULT-VALUE}).")
  String url;

  @Option(
      names = "--user",
      paramLabel = "USER",
      defaultValue = "${env:IOX_JDBC_USER:-postgres}",
      description = "Database user, else IOX_JDBC_USER (default ${DEFAULT-VALUE}).")
  String user;

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:IOX_JDBC_PASSWORD:-}",
      description = "Database password, else IOX_JDBC_PASSWORD (default: empty).")
  String password;

  /** Where {@link #connect()} goes, for a person: the URL and the user, never the password. */
  String describe() {
    return url.replaceAll("(?i)password=[^&]*", "password=***") + " as " + user;
  }

  Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    return DriverManager.getConnection(url, p);
  }

  PGSimpleDataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(url);
    dataSource.setUser(user);
    dataSource.setPassword(password);
    return dataSource;
  }
}
