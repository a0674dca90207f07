package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.testing.jdbc.Rows;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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

  @Configuration(proxyBeanMethods = false)
  static class OwnRetention {
    @Bean
    RetentionCleaner ownRetention(DataSource dataSource) {
      return RetentionCleaner.builder(dataSource).batchSize(7).build();
    }
  }
}
