package dev.inboxoutbox.testing.schema;

import dev.inboxoutbox.devstack.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Instances of a service deployed together onto a new database: each starts with the service's
 * application.properties and every auto-configuration on the test's classpath (none of the
 * service's own beans), the framework's migration and relay switched off, while another instance
 * holds the schema migration lock. Every one of them must queue on that lock before Spring Boot's
 * Flyway touches the database; released, they migrate one after another.
 */
public final class SimultaneousMigration {

  private SimultaneousMigration() {}

  /**
   * Starts {@code instances} instances at once behind a held migration lock, checks that all of
   * them queue on it with the database still empty, releases it and stops them; fails if any of
   * them failed to start.
   */
  public static void startTogether(int instances, Database database)
      throws InterruptedException, ExecutionException, SQLException {
    // Spring Boot's logging set-up is not thread-safe (a ConcurrentModificationException in
    // LogbackLoggingSystem when contexts start on several threads at once): these contexts leave
    // logging as the test run configured it.
    String loggingSystem = System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    ExecutorService threads = Executors.newFixedThreadPool(instances);
    try (HeldMigrationLock lock = HeldMigrationLock.take(database)) {
      List<Future<?>> starts =
          IntStream.range(0, instances)
              .<Future<?>>mapToObj(i -> threads.submit(() -> start(database).close()))
              .toList();
      lock.awaitQueued(starts);
      lock.release();
      for (Future<?> start : starts) {
        start.get();
      }
    } finally {
      threads.shutdownNow();
      if (loggingSystem == null) {
        System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
      } else {
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, loggingSystem);
      }
    }
  }

  /** Flyway's history in {@code historyTable}, one "version type success" line per migration. */
  public static List<String> history(Database database, String historyTable) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT version, type, success FROM %s ORDER BY installed_rank"
                    .formatted(historyTable))) {
      List<String> history = new ArrayList<>();
      while (rows.next()) {
        history.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getBoolean(3));
      }
      return history;
    }
  }

  /** The service's configuration and every auto-configuration on its classpath, minus its beans. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ServiceSchemaOnly {}

  private static ConfigurableApplicationContext start(Database database) {
    // Command-line arguments: they outrank the service's application.properties.
    return new SpringApplicationBuilder(ServiceSchemaOnly.class)
        .web(WebApplicationType.NONE)
        .run(
            "--spring.datasource.url=" + database.jdbcUrl(),
            "--spring.datasource.username=" + database.username(),
            "--spring.datasource.password=" + database.password(),
            "--inbox-outbox.schema.migrate=false",
            "--inbox-outbox.relay.enabled=false",
            "--inbox-outbox.retention.enabled=false");
  }
}
