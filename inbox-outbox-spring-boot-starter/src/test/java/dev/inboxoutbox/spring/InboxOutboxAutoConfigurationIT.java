package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.testing.jdbc.Rows;
import java.time.Duration;
import javax.sql.DataSource;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** The starter's conditions whose beans use the database: the schema and the retention schedule. */
class InboxOutboxAutoConfigurationIT {

  private static final String INBOX_TABLES =
      "SELECT count(*) FROM information_schema.tables WHERE table_name = 'inbox'";

  private Database database;
  private ApplicationContextRunner app;

  @BeforeEach
  void newDatabase() {
    database = DevStack.shared().postgres().createDatabase();
    app =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(InboxOutboxAutoConfiguration.class))
            .withBean(DataSource.class, database::dataSource);
  }

  @AfterEach
  void dropDatabase() {
    database.close();
  }

  @Test
  void theSchemaIsMigratedByDefault() {
    app.withPropertyValues("inbox-outbox.retention.enabled=false")
        .run(context -> assertThat(Rows.count(database.dataSource(), INBOX_TABLES)).isOne());
  }

  /**
   * Boot orders beans that use the database after its initializers (Flyway, SQL scripts): the
   * framework's migration is one of them, so an application's {@code JdbcTemplate}, and any bean
   * that depends on database initialization, finds the inbox tables already there.
   */
  @Test
  void anApplicationsJdbcBeanCreatedAtStartUpFindsTheFrameworksTablesMigrated() {
    app.withPropertyValues("inbox-outbox.retention.enabled=false")
        .withUserConfiguration(ReadsTheInboxWhileStarting.class)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .getBean(ReadsTheInboxWhileStarting.Keys.class)
                    .extracting(ReadsTheInboxWhileStarting.Keys::count)
                    .isEqualTo(0L));
  }

  @Configuration(proxyBeanMethods = false)
  static class ReadsTheInboxWhileStarting {
    record Keys(long count) {}

    @Bean
    JdbcTemplate applicationsJdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }

    @Bean
    Keys keysAtStartUp(JdbcTemplate jdbc) {
      return new Keys(jdbc.queryForObject("SELECT count(*) FROM inbox", Long.class));
    }
  }

  @Test
  void schemaMigrateFalseLeavesTheDatabaseAlone() {
    app.withPropertyValues(
            "inbox-outbox.schema.migrate=false", "inbox-outbox.retention.enabled=false")
        .run(context -> assertThat(Rows.count(database.dataSource(), INBOX_TABLES)).isZero());
  }

  @Test
  void retentionRunsOnItsScheduleByDefault() {
    app.withPropertyValues("inbox-outbox.retention.interval=100ms")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RetentionLifecycle.class);
              RetentionTotals totals = context.getBean(RetentionTotals.class);
              await("two retention runs")
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> totals.runs() >= 2);
              assertThat(totals.last())
                  .hasValueSatisfying(last -> assertThat(last.complete()).isTrue());
            });
  }

  @Test
  void anApplicationsOwnRetentionCleanerWinsAndRunsOnTheSchedule() {
    app.withUserConfiguration(OwnRetention.class)
        .run(
            context -> {
              RetentionCleaner own = context.getBean("ownRetention", RetentionCleaner.class);
              assertThat(context).getBean(RetentionCleaner.class).isSameAs(own);
              RetentionTotals totals = context.getBean(RetentionTotals.class);
              await("the application's cleaner run by the schedule")
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> totals.runs() >= 1);
            });
  }

  @Test
  void theRetentionHealthIsDownWhileCleanupIsBehindByMoreThanTheThresholdAndUpOnceCaughtUp() {
    ApplicationContextRunner withHealth =
        app.withConfiguration(AutoConfigurations.of(InboxOutboxHealthAutoConfiguration.class))
            .withPropertyValues(
                "inbox-outbox.retention.interval=1m",
                "inbox-outbox.retention.overdue-threshold=10m");
    // Migrates the schema and leaves an empty inbox behind.
    withHealth.withPropertyValues("inbox-outbox.retention.enabled=false").run(context -> {});
    new JdbcTemplate(database.dataSource())
        .execute(
            """
        INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,
                           outcome_body, outcome_expires_at, expires_at)
        SELECT 'orders', 'expired-' || g, repeat('0', 64), 'COMPLETED', 'SUCCESS', '{}'::jsonb,
               now() - interval '2 hours', now() - interval '1 hour'
          FROM generate_series(1, 200) g
        """);

    // One row per step and a pause before each: every run ends behind, the keys an hour overdue.
    withHealth
        .withPropertyValues(
            "inbox-outbox.retention.batch-size=1",
            "inbox-outbox.retention.run-budget=1ms",
            "inbox-outbox.retention.pause-between-batches=1s")
        .run(
            context -> {
              RetentionTotals totals = context.getBean(RetentionTotals.class);
              await("the first run").atMost(Duration.ofSeconds(30)).until(() -> totals.runs() >= 1);
              Health health = context.getBean(RetentionHealthIndicator.class).health(true);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails()).containsEntry("state", "BEHIND");
              assertThat(health.getDetails().get("keys"))
                  .asInstanceOf(InstanceOfAssertFactories.MAP)
                  .hasEntrySatisfying(
                      "overdueRows", rows -> assertThat((Long) rows).isBetween(150L, 199L))
                  .containsEntry("overdueRowsCapped", false)
                  .hasEntrySatisfying(
                      "overdueSeconds", seconds -> assertThat((Long) seconds).isGreaterThan(3500));
            });

    withHealth.run(
        context -> {
          RetentionTotals totals = context.getBean(RetentionTotals.class);
          await("a run that caught up")
              .atMost(Duration.ofSeconds(30))
              .until(() -> totals.runs() >= 1);
          Health health = context.getBean(RetentionHealthIndicator.class).health(true);
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails()).containsEntry("state", "KEEPING_UP");
          assertThat(totals.overdueRows(RetentionCleaner.Step.DELETE_EXPIRED_KEYS)).isZero();
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRetention {
    @Bean
    RetentionCleaner ownRetention(DataSource dataSource) {
      return RetentionCleaner.builder(dataSource).batchSize(7).build();
    }
  }
}
