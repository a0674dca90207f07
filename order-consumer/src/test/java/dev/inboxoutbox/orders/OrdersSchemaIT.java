package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;

class OrdersSchemaIT {

  private static final int INSTANCES = 8;

  private static String loggingSystem;

  /**
   * Spring Boot's logging set-up is not thread-safe (a ConcurrentModificationException in
   * LogbackLoggingSystem when contexts start on several threads at once): these contexts leave
   * logging as the test run configured it.
   */
  @BeforeAll
  static void keepLoggingAsConfigured() {
    loggingSystem = System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
  }

  @AfterAll
  static void restoreLoggingSystem() {
    if (loggingSystem == null) {
      System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
    } else {
      System.setProperty(LoggingSystem.SYSTEM_PROPERTY, loggingSystem);
    }
  }

  /**
   * Instances of the service deployed together onto a new database (with the framework's own
   * migration switched off, or run elsewhere) migrate the order tables at once, through Spring
   * Boot's Flyway with the service's spring.flyway settings. Without the starter's locked migration
   * strategy, one round in ten failed with "Unable to baseline schema history table ... as it
   * already exists, and is empty"; hence 20 rounds, each on a database of its own, with the
   * instances released together just before they migrate.
   */
  @RepeatedTest(20)
  void instancesMigratingANewDatabaseAtOnceAllStartAndApplyEachMigrationOnce() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      CyclicBarrier beforeMigrating = new CyclicBarrier(INSTANCES);
      ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
      try {
        List<Future<?>> starts =
            IntStream.range(0, INSTANCES)
                .<Future<?>>mapToObj(
                    i -> threads.submit(() -> start(database, beforeMigrating).close()))
                .toList();
        for (Future<?> start : starts) {
          start.get();
        }

        assertThat(history(database)).containsExactly("1 SQL true");
      } finally {
        threads.shutdownNow();
      }
    }
  }

  /** The service's configuration and every auto-configuration on its classpath, minus its beans. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ServiceSchemaOnly {}

  private static ConfigurableApplicationContext start(
      Database database, CyclicBarrier beforeMigrating) {
    FlywayConfigurationCustomizer startTogether =
        configuration -> {
          try {
            beforeMigrating.await(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException("the other instances did not reach their migration", e);
          }
        };
    // Command-line arguments: they outrank the service's application.properties.
    return new SpringApplicationBuilder(ServiceSchemaOnly.class)
        .web(WebApplicationType.NONE)
        .initializers(
            context -> context.getBeanFactory().registerSingleton("startTogether", startTogether))
        .run(
            "--spring.datasource.url=" + database.jdbcUrl(),
            "--spring.datasource.username=" + database.username(),
            "--spring.datasource.password=" + database.password(),
            "--inbox-outbox.schema.migrate=false",
            "--inbox-outbox.relay.enabled=false",
            "--inbox-outbox.retention.enabled=false");
  }

  private static List<String> history(Database database) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT version, type, success FROM orders_schema_history ORDER BY installed_rank")) {
      List<String> history = new ArrayList<>();
      while (rows.next()) {
        history.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getBoolean(3));
      }
      return history;
    }
  }
}
