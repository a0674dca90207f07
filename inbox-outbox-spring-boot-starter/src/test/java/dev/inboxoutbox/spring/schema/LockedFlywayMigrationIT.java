package dev.inboxoutbox.spring.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.jdbc.Rows;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LockedFlywayMigrationIT {

  /**
   * The schema migration lock's two keys (dev.inboxoutbox.schema.MigrationLock): "iox" in ASCII,
   * then schema migration.
   */
  private static final String MIGRATION_LOCK = "pg_advisory_lock(6909816, 1)";

  private Database database;
  private ApplicationContextRunner boot;

  @BeforeEach
  void createDatabase() {
    database = DevStack.shared().postgres().createDatabase();
    boot =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    FlywayAutoConfiguration.class,
                    LockedFlywayMigrationAutoConfiguration.class))
            .withPropertyValues(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password(),
                "spring.flyway.locations=classpath:db/locked-it");
  }

  @AfterEach
  void dropDatabase() {
    database.close();
  }

  @Test
  void springBootsFlywayMigrationWaitsForTheMigrationLockThenMigrates() throws Exception {
    try (Connection otherInstance = database.connect()) {
      try (Statement lock = otherInstance.createStatement()) {
        lock.execute("SELECT " + MIGRATION_LOCK);
      }
      CompletableFuture<Void> start =
          CompletableFuture.runAsync(() -> boot.run(context -> assertThat(context).hasNotFailed()));

      await("the starting context's migration waiting for the lock")
          .atMost(Duration.ofSeconds(60))
          .until(() -> waitingForTheMigrationLock() == 1);
      assertThat(tableExists("things")).isFalse();

      try (Statement unlock = otherInstance.createStatement()) {
        unlock.execute("SELECT pg_advisory_unlock(6909816, 1)");
      }
      start.get();
    }
    assertThat(tableExists("things")).isTrue();
  }

  @Test
  void anApplicationsOwnMigrationStrategyIsKept() {
    boot.withUserConfiguration(OwnStrategy.class)
        .run(
            context -> {
              assertThat(context)
                  .getBean(FlywayMigrationStrategy.class)
                  .isSameAs(OwnStrategy.STRATEGY);
              assertThat(tableExists("things")).isFalse();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnStrategy {
    static final FlywayMigrationStrategy STRATEGY = (Flyway flyway) -> {};

    @Bean
    FlywayMigrationStrategy ownStrategy() {
      return STRATEGY;
    }
  }

  private long waitingForTheMigrationLock() {
    return count(
        "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
            + " WHERE d.datname = current_database() AND l.locktype = 'advisory'"
            + " AND l.classid = 6909816 AND l.objid = 1 AND NOT l.granted");
  }

  private boolean tableExists(String table) throws SQLException {
    return count(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = '" + table + "'")
        == 1;
  }

  private long count(String sql) {
    return Rows.count(database.dataSource(), sql);
  }
}
