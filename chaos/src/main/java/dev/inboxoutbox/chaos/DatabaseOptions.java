package dev.inboxoutbox.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Option;

/** Connection options shared by inspect and retention. */
class DatabaseOptions {
  @Option(
      names = "--jdbc-url",
      defaultValue = "${env:IOX_JDBC_URL:-jdbc:postgresql://localhost:15432/order_consumer}",
      description = "Database to read (default ${DEFAULT-VALUE}).")
  String url;

  @Option(names = "--user", defaultValue = "${env:IOX_JDBC_USER:-postgres}")
  String user;

  @Option(names = "--password", defaultValue = "${env:IOX_JDBC_PASSWORD:-}")
  String password;

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
