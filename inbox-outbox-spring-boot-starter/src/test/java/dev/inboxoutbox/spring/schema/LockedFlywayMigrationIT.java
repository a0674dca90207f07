package dev.inboxoutbox.spring.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.schema.HeldMigrationLock;
import java.sql.SQLException;
import java.util.List;
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
    try (HeldMigrationLock otherInstance = HeldMigrationLock.take(database)) {
      CompletableFuture<Void> start =
          CompletableFuture.runAsync(() -> boot.run(context -> assertThat(context).hasNotFailed()));

      otherInstance.awaitQueued(List.of(start));
      assertThat(tableExists("things")).isFalse();

      otherInstance.release();
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

  private boolean tableExists(String table) throws SQLException {
    return count(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = '" + table + "'")
        == 1;
  }

  private long count(String sql) {
    return Rows.count(database.dataSource(), sql);
  }
}
