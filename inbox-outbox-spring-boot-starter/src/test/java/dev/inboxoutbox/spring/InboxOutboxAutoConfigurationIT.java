package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.retention.RetentionPolicy;
import dev.inboxoutbox.retention.RetentionScheduler;
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
              RetentionScheduler scheduler = context.getBean(RetentionScheduler.class);
              await("two retention runs")
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> scheduler.runs() >= 2);
              assertThat(scheduler.failures()).isZero();
            });
  }

  @Test
  void anApplicationsOwnRetentionSchedulerWinsAndIsStartedWithIt() {
    app.withUserConfiguration(OwnRetention.class)
        .run(
            context -> {
              RetentionScheduler own = context.getBean("ownRetention", RetentionScheduler.class);
              assertThat(context).getBean(RetentionScheduler.class).isSameAs(own);
              await("the application's scheduler started")
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> own.runs() >= 1);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnRetention {
    @Bean
    RetentionScheduler ownRetention(DataSource dataSource) {
      return new RetentionScheduler(
          new RetentionCleaner(dataSource, RetentionPolicy.defaults()), Duration.ofHours(1));
    }
  }
}
