package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.relay.OutboxRelay;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The relay is wired only where the application put inbox-outbox-relay-debezium on its classpath;
 * teams running Debezium Server or Kafka Connect leave it off and keep the rest of the starter.
 * Nothing here connects: the schema is not migrated and retention does not run.
 */
class RelayAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  KafkaAutoConfiguration.class,
                  InboxOutboxAutoConfiguration.class,
                  InboxOutboxRelayAutoConfiguration.class,
                  InboxOutboxHealthAutoConfiguration.class,
                  InboxOutboxMetricsAutoConfiguration.class))
          .withBean(DataSource.class, RelayAutoConfigurationTest::unconnectedDataSource)
          .withPropertyValues(
              "inbox-outbox.schema.migrate=false", "inbox-outbox.retention.enabled=false");

  @Test
  void withoutTheRelayModuleTheStarterWiresEverythingButTheRelay() {
    runner
        .withClassLoader(new FilteredClassLoader(OutboxRelay.class))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean("outboxRelay");
              assertThat(context).doesNotHaveBean(RelayLifecycle.class);
              assertThat(context).hasSingleBean(Inbox.class).hasSingleBean(Outbox.class);
            });
  }

  @Test
  void enablingTheRelayWithoutTheRelayModuleFailsTheStartNamingTheModule() {
    runner
        .withClassLoader(new FilteredClassLoader(OutboxRelay.class))
        .withPropertyValues("inbox-outbox.relay.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("inbox-outbox-relay-debezium"));
  }

  @Test
  void withTheRelayModuleTheRelayStaysOffUnlessEnabled() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(OutboxRelay.class);
          assertThat(context).doesNotHaveBean(RelayLifecycle.class);
        });
  }

  @Test
  void aRelayQueueNoLargerThanItsBatchFailsTheStartNamingBothSettings() {
    runner
        .withPropertyValues(
            "inbox-outbox.relay.enabled=true",
            "inbox-outbox.relay.jdbc-url=jdbc:postgresql://127.0.0.1:1/never_connected",
            "inbox-outbox.relay.max-batch-size=512",
            "inbox-outbox.relay.max-queue-size=512")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("maxQueueSize")
                    .hasMessageContaining("maxBatchSize (512)"));
  }

  @Test
  void aRelayPollIntervalBelowOneMillisecondFailsTheStartNamingIt() {
    runner
        .withPropertyValues(
            "inbox-outbox.relay.enabled=true",
            "inbox-outbox.relay.jdbc-url=jdbc:postgresql://127.0.0.1:1/never_connected",
            "inbox-outbox.relay.poll-interval=500us")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("pollInterval must be at least 1 ms"));
  }

  private static DataSource unconnectedDataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL("jdbc:postgresql://127.0.0.1:1/never_connected");
    return dataSource;
  }
}
