package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.spring.schema.LockedFlywayMigrationAutoConfiguration;
import dev.inboxoutbox.spring.web.InboxOutboxWebAutoConfiguration;
import dev.inboxoutbox.spring.web.RequestBodyLimitAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.web.servlet.HandlerAdapter;

/**
 * Which beans the starter's auto-configurations contribute under which conditions. No database and
 * no broker: the data source points nowhere, and nothing here may connect (the schema migration and
 * the retention schedule, which would, are switched off; {@link InboxOutboxAutoConfigurationIT}
 * covers them on a real database).
 */
class InboxOutboxAutoConfigurationTest {

  private static final AutoConfigurations STARTER =
      AutoConfigurations.of(
          InboxOutboxAutoConfiguration.class,
          InboxOutboxMetricsAutoConfiguration.class,
          InboxOutboxHealthAutoConfiguration.class,
          RequestBodyLimitAutoConfiguration.class,
          InboxOutboxWebAutoConfiguration.class,
          LockedFlywayMigrationAutoConfiguration.class);

  private static final String[] NOTHING_THAT_CONNECTS = {
    "inbox-outbox.schema.migrate=false", "inbox-outbox.retention.enabled=false"
  };

  private final ApplicationContextRunner app =
      new ApplicationContextRunner()
          .withConfiguration(STARTER)
          .withPropertyValues(NOTHING_THAT_CONNECTS);

  private final ApplicationContextRunner appWithDatabase =
      app.withUserConfiguration(UnreachableDatabase.class);

  /** Boot's Kafka auto-configuration and one idempotent consumer whose container never starts. */
  private final ApplicationContextRunner appWithAConsumer =
      appWithDatabase
          .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
          .withPropertyValues(
              "spring.kafka.bootstrap-servers=localhost:1",
              "spring.kafka.listener.auto-startup=false")
          .withBean(
              IdempotentConsumerDefinition.class,
              () -> IdempotentConsumerDefinition.of("orders", (m, c) -> Outcome.success(), "o"));

  @Test
  void anOperationsLifetimeLeftUnsetFollowsTheApplicationsDefaultNotTheLibrarys() {
    appWithDatabase
        .withPropertyValues(
            "inbox-outbox.inbox.outcome-ttl=2h",
            "inbox-outbox.inbox.key-ttl=30d",
            "inbox-outbox.inbox.operations.payments.key-ttl=90d",
            "inbox-outbox.inbox.operations.orders.outcome-ttl=1h")
        .run(
            context -> {
              Inbox inbox = context.getBean(Inbox.class);
              assertThat(inbox.retentionFor("payments"))
                  .isEqualTo(Inbox.Retention.of(Duration.ofHours(2), Duration.ofDays(90)));
              assertThat(inbox.retentionFor("orders"))
                  .isEqualTo(Inbox.Retention.of(Duration.ofHours(1), Duration.ofDays(30)));
              assertThat(inbox.retentionFor("anything-else"))
                  .isEqualTo(Inbox.Retention.of(Duration.ofHours(2), Duration.ofDays(30)));
            });
  }

  @Test
  void withoutADataSourceTheStarterContributesNoInboxOutboxOrRunner() {
    app.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(Inbox.class)
                .doesNotHaveBean(Outbox.class)
                .doesNotHaveBean(TransactionRunner.class)
                .doesNotHaveBean(RetentionTotals.class));
  }

  @Test
  void withADataSourceTheStarterContributesInboxOutboxAndASpringTransactionRunner() {
    appWithDatabase.run(
        context -> {
          assertThat(context).hasSingleBean(Inbox.class).hasSingleBean(Outbox.class);
          assertThat(context)
              .getBean(TransactionRunner.class)
              .isInstanceOf(SpringTransactionRunner.class);
          assertThat(context).hasBean("failoverDurabilityHealthIndicator");
        });
  }

  @Test
  void theRelayIsOffUnlessEnabled() {
    ContextConsumer<AssertableApplicationContext> noRelay =
        context ->
            assertThat(context)
                .doesNotHaveBean(OutboxRelay.class)
                .doesNotHaveBean(RelayLifecycle.class)
                .doesNotHaveBean("outboxRelayHealthIndicator");
    appWithDatabase.run(noRelay);
    appWithDatabase.withPropertyValues("inbox-outbox.relay.enabled=false").run(noRelay);
  }

  @Test
  void retentionDisabledMeansNoScheduleButTotalsForTheMetrics() {
    appWithDatabase.run(
        context ->
            assertThat(context)
                .doesNotHaveBean(RetentionCleaner.class)
                .doesNotHaveBean(RetentionLifecycle.class)
                .doesNotHaveBean("retentionHealthIndicator")
                .hasSingleBean(RetentionTotals.class));
  }

  @Test
  void anApplicationsOwnInboxOutboxRunnerAndTotalsWinOverTheStarters() {
    appWithDatabase
        .withUserConfiguration(OwnBeans.class)
        .run(
            context -> {
              assertThat(context).getBean(Inbox.class).isSameAs(OwnBeans.INBOX);
              assertThat(context).getBean(Outbox.class).isSameAs(OwnBeans.OUTBOX);
              assertThat(context).getBean(TransactionRunner.class).isSameAs(OwnBeans.RUNNER);
              assertThat(context).getBean(RetentionTotals.class).isSameAs(OwnBeans.TOTALS);
            });
  }

  @Test
  void twoTransactionManagersLeaveTheRunnerToTheApplication() {
    appWithDatabase
        .withUserConfiguration(SecondTransactionManager.class)
        .run(context -> assertThat(context).doesNotHaveBean(TransactionRunner.class));
  }

  @Test
  void withoutATransactionManagerThereIsNoSpringTransactionRunner() {
    app.withUserConfiguration(DataSourceOnly.class)
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(Inbox.class)
                    .doesNotHaveBean(TransactionRunner.class));
  }

  @Test
  void withoutConsumerDefinitionsThereAreNoConsumersAndNoDeadLetterProducer() {
    appWithDatabase.run(
        context ->
            assertThat(context)
                .doesNotHaveBean(IdempotentConsumers.class)
                .doesNotHaveBean(KafkaProducer.class)
                .doesNotHaveBean("idempotentConsumersHealthIndicator")
                .doesNotHaveBean("kafkaConnectionHealthIndicator"));
  }

  @Test
  void theDeadLetterProducerComesFromAProducerFactoryWithBootsProducerSettingsAndCustomizers() {
    List<DefaultKafkaProducerFactory<?, ?>> customized = new ArrayList<>();
    appWithAConsumer
        .withPropertyValues("spring.kafka.producer.properties.linger.ms=7")
        .withBean(DefaultKafkaProducerFactoryCustomizer.class, () -> customized::add)
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(KafkaProducer.class);
              DefaultKafkaProducerFactory<?, ?> deadLetters =
                  context.getBean(
                      "inboxOutboxDeadLetterProducerFactory", DefaultKafkaProducerFactory.class);
              assertThat(deadLetters.getConfigurationProperties())
                  .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, List.of("localhost:1"))
                  .containsEntry(ProducerConfig.LINGER_MS_CONFIG, "7")
                  .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                  .containsEntry(ProducerConfig.ACKS_CONFIG, "all");
              // The factory keeps client.id apart, as the prefix of its producers' ids.
              assertThat(ReflectionTestUtils.getField(deadLetters, "clientIdPrefix"))
                  .isEqualTo("iox-dead-letters");
              assertThat(deadLetters.getKeySerializer()).isInstanceOf(StringSerializer.class);
              assertThat(deadLetters.getValueSerializer()).isInstanceOf(ByteArraySerializer.class);
              assertThat(customized).contains(deadLetters);
            });
  }

  @Test
  void anApplicationsOwnProducerFactoryIsTheOneItGetsByTypeBesideTheDeadLetterOne() {
    appWithAConsumer
        .withUserConfiguration(OwnProducerFactory.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(ProducerFactoryUser.class).factory())
                  .isSameAs(OwnProducerFactory.FACTORY);
              assertThat(context.getBean(ProducerFactory.class))
                  .isSameAs(OwnProducerFactory.FACTORY);
              assertThat(context.getBean(KafkaTemplate.class).getProducerFactory())
                  .isSameAs(OwnProducerFactory.FACTORY);
              assertThat(context).hasBean("inboxOutboxDeadLetterProducerFactory");
            });
  }

  @Test
  void theOffsetCommitIsOncePerBatchUnlessSpringKafkaListenerAckModeSaysOtherwise() {
    appWithAConsumer.run(
        context ->
            assertThat(onlyContainer(context).getAckMode())
                .isEqualTo(ContainerProperties.AckMode.BATCH));
    appWithAConsumer
        .withPropertyValues(
            "spring.kafka.listener.ack-mode=count_time",
            "spring.kafka.listener.ack-time=1s",
            "spring.kafka.listener.ack-count=500")
        .run(
            context -> {
              ContainerProperties container = onlyContainer(context);
              assertThat(container.getAckMode()).isEqualTo(ContainerProperties.AckMode.COUNT_TIME);
              assertThat(container.getAckTime()).isEqualTo(1000);
              assertThat(container.getAckCount()).isEqualTo(500);
            });
  }

  @Test
  void aManualAckModeIsRefusedSinceTheListenerAcknowledgesNothingItself() {
    appWithAConsumer
        .withPropertyValues("spring.kafka.listener.ack-mode=manual")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("spring.kafka.listener.ack-mode=MANUAL")
                    .hasMessageContaining("BATCH, TIME, COUNT or COUNT_TIME"));
  }

  private static ContainerProperties onlyContainer(AssertableApplicationContext context) {
    assertThat(context).hasNotFailed();
    List<ConcurrentMessageListenerContainer<?, ?>> containers =
        context.getBean(IdempotentConsumers.class).containers();
    assertThat(containers).hasSize(1);
    return containers.get(0).getContainerProperties();
  }

  @Test
  void theHttpIdempotencyAndBodyLimitAreOnlyInAServletWebApplication() {
    appWithDatabase.run(
        context ->
            assertThat(context)
                .doesNotHaveBean(InboxOutboxWebAutoConfiguration.class)
                .doesNotHaveBean(HandlerAdapter.class)
                .doesNotHaveBean(FilterRegistrationBean.class));
    new WebApplicationContextRunner()
        .withConfiguration(STARTER)
        .withPropertyValues(NOTHING_THAT_CONNECTS)
        .withUserConfiguration(UnreachableDatabase.class)
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(InboxOutboxWebAutoConfiguration.class)
                    .hasSingleBean(HandlerAdapter.class)
                    .hasBean("inboxOutboxRequestBodyLimit"));
  }

  @Test
  void theHttpIdempotencyNeedsATransactionManager() {
    new WebApplicationContextRunner()
        .withConfiguration(STARTER)
        .withPropertyValues(NOTHING_THAT_CONNECTS)
        .withUserConfiguration(DataSourceOnly.class)
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(InboxOutboxWebAutoConfiguration.class)
                    .hasBean("inboxOutboxRequestBodyLimit"));
  }

  @Test
  void metersAreBoundOnlyWithMicrometerOnTheClasspath() {
    appWithDatabase.run(context -> assertThat(context).hasBean("inboxOutboxMeters"));
    appWithDatabase
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(context -> assertThat(context).doesNotHaveBean(MeterBinder.class));
  }

  @Test
  void healthIndicatorsNeedActuatorsHealthOnTheClasspath() {
    appWithDatabase
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(InboxOutboxHealthAutoConfiguration.class));
  }

  @Test
  void flywayMigrationsTakeTheLockedStrategyOnlyWithFlywayOnTheClasspath() {
    app.run(context -> assertThat(context).hasBean("lockedFlywayMigration"));
    app.withClassLoader(new FilteredClassLoader(Flyway.class))
        .run(context -> assertThat(context).doesNotHaveBean(FlywayMigrationStrategy.class));
  }

  /** A data source that is never connected to: any connection attempt would fail the test. */
  @Configuration(proxyBeanMethods = false)
  static class DataSourceOnly {
    @Bean
    DataSource dataSource() {
      return new DriverManagerDataSource("jdbc:postgresql://never-connected.invalid/none");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class UnreachableDatabase extends DataSourceOnly {
    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class SecondTransactionManager {
    @Bean
    PlatformTransactionManager otherTransactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }
  }

  /** An application's own producer factory, and a bean of it that asks for one by type. */
  @Configuration(proxyBeanMethods = false)
  static class OwnProducerFactory {
    static final ProducerFactory<Object, Object> FACTORY =
        new DefaultKafkaProducerFactory<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));

    @Bean
    ProducerFactory<Object, Object> applicationProducerFactory() {
      return FACTORY;
    }

    @Bean
    ProducerFactoryUser producerFactoryUser(ProducerFactory<?, ?> factory) {
      return new ProducerFactoryUser(factory);
    }
  }

  record ProducerFactoryUser(ProducerFactory<?, ?> factory) {}

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    static final Inbox INBOX = Inbox.builder().build();
    static final Outbox OUTBOX = Outbox.builder().build();
    static final TransactionRunner RUNNER =
        TransactionRunner.fromDataSource(
            new DriverManagerDataSource("jdbc:postgresql://never-connected.invalid/own"));
    static final RetentionTotals TOTALS = new RetentionTotals();

    @Bean
    Inbox ownInbox() {
      return INBOX;
    }

    @Bean
    Outbox ownOutbox() {
      return OUTBOX;
    }

    @Bean
    TransactionRunner ownRunner() {
      return RUNNER;
    }

    @Bean
    RetentionTotals ownTotals() {
      return TOTALS;
    }
  }
}
