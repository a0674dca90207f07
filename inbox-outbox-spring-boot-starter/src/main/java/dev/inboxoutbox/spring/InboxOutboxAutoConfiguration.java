package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.CrashInjector;
import dev.inboxoutbox.consumer.CrashPoint;
import dev.inboxoutbox.consumer.DeadLetters;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.Retention;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelaySettings;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Wires the plain-Java pieces of inbox-outbox into a Spring Boot application: schema migration,
 * {@link Inbox}, {@link Outbox}, one listener container per {@link IdempotentConsumerDefinition}
 * running its batches in the application's transaction manager, the relay (when {@code
 * inbox-outbox.relay.enabled}) and the retention schedule.
 */
@AutoConfiguration(
    after = {
      DataSourceAutoConfiguration.class,
      KafkaAutoConfiguration.class,
      TransactionAutoConfiguration.class
    })
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(InboxOutboxProperties.class)
public class InboxOutboxAutoConfiguration {

  /** Marks that the framework's tables exist; beans that use them depend on it. */
  public static final class SchemaReady {
    private SchemaReady() {}
  }

  @Bean
  @ConditionalOnMissingBean
  SchemaReady inboxOutboxSchema(DataSource dataSource, InboxOutboxProperties properties) {
    if (properties.getSchema().isMigrate()) {
      InboxOutboxSchema.migrate(dataSource);
    }
    return new SchemaReady();
  }

  @Bean
  @ConditionalOnMissingBean
  Inbox inbox(InboxOutboxProperties properties, SchemaReady schema) {
    InboxOutboxProperties.Inbox settings = properties.getInbox();
    Inbox.Builder builder =
        Inbox.builder().retention(Retention.of(settings.getOutcomeTtl(), settings.getKeyTtl()));
    settings
        .getOperations()
        .forEach(
            (operation, ttl) ->
                builder.retention(operation, Retention.of(ttl.getOutcomeTtl(), ttl.getKeyTtl())));
    return builder.build();
  }

  @Bean
  @ConditionalOnMissingBean
  Outbox outbox(InboxOutboxProperties properties, SchemaReady schema) {
    return Outbox.builder().policy(properties.getOutbox().getPolicy()).build();
  }

  /**
   * Consumer batches in transactions of the application's transaction manager, so a handler's
   * {@code JdbcTemplate}, {@code JdbcClient}, repository or {@code @Transactional} call joins the
   * transaction that claims the key.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnSingleCandidate(PlatformTransactionManager.class)
  TransactionRunner inboxOutboxTransactionRunner(
      PlatformTransactionManager transactionManager, DataSource dataSource) {
    return new SpringTransactionRunner(transactionManager, dataSource);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnBean(IdempotentConsumerDefinition.class)
  KafkaProducer<String, byte[]> inboxOutboxDeadLetterProducer(
      KafkaProperties kafka, KafkaConnectionDetails kafkaConnection) {
    Map<String, Object> producer = new HashMap<>(kafka.buildProducerProperties());
    producer.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        String.join(",", kafkaConnection.getProducer().getBootstrapServers()));
    return DeadLetters.newProducer(producer, "iox-dead-letters", Map.of());
  }

  @Bean
  @ConditionalOnBean(IdempotentConsumerDefinition.class)
  IdempotentConsumers idempotentConsumers(
      ObjectProvider<IdempotentConsumerDefinition> definitions,
      ConcurrentKafkaListenerContainerFactory<?, ?> kafkaListenerContainerFactory,
      KafkaProperties kafka,
      InboxOutboxProperties properties,
      DataSource dataSource,
      ObjectProvider<TransactionRunner> transactionRunner,
      Inbox inbox,
      Outbox outbox,
      KafkaProducer<String, byte[]> inboxOutboxDeadLetterProducer,
      ObjectProvider<CrashInjector> crashInjector) {
    return new IdempotentConsumers(
        definitions.orderedStream().toList(),
        kafkaListenerContainerFactory,
        kafka.buildConsumerProperties(),
        properties.getConsumer(),
        transactionRunner.getIfAvailable(() -> IdempotentConsumers.plainJdbc(dataSource)),
        inbox,
        outbox,
        inboxOutboxDeadLetterProducer,
        crashInjector.getIfAvailable(() -> crashInjector(properties.getChaos())));
  }

  @Bean
  @ConditionalOnBooleanProperty("inbox-outbox.relay.enabled")
  @ConditionalOnMissingBean
  OutboxRelay outboxRelay(
      InboxOutboxProperties properties,
      KafkaProperties kafka,
      ObjectProvider<JdbcConnectionDetails> jdbc,
      KafkaConnectionDetails kafkaConnection,
      Environment environment,
      SchemaReady schema) {
    InboxOutboxProperties.Relay relay = properties.getRelay();
    // Boot's connection details (properties, or a service connection such as Testcontainers'),
    // so the relay reads the same database and cluster as the rest of the application.
    JdbcConnectionDetails database = jdbc.getIfAvailable(() -> fromProperties(environment));
    RelaySettings.Builder settings =
        RelaySettings.builder()
            .jdbcUrl(firstSet(relay.getJdbcUrl(), database.getJdbcUrl()))
            .user(firstSet(relay.getUsername(), database.getUsername()))
            .password(firstSet(relay.getPassword(), database.getPassword()))
            .kafkaBootstrapServers(
                String.join(",", kafkaConnection.getProducer().getBootstrapServers()))
            .slotName(relay.getSlotName())
            .publicationName(relay.getPublicationName())
            .topicReplacement(relay.getTopicReplacement())
            .offsetFlushInterval(relay.getOffsetFlushInterval())
            .heartbeatInterval(relay.getHeartbeatInterval())
            .standbyPollInterval(relay.getStandbyPollInterval())
            .restartBackoff(relay.getRestartBackoffMin(), relay.getRestartBackoffMax())
            .markPublished(true);
    kafka
        .buildProducerProperties()
        .forEach(
            (name, value) -> {
              if (!name.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) && value != null) {
                settings.producerProperty(name, String.valueOf(value));
              }
            });
    if (properties.getChaos().getCrashPoints().isEmpty()) {
      return new OutboxRelay(settings.build());
    }
    CrashInjector crash = crashInjector(properties.getChaos());
    return new OutboxRelay(settings.build(), events -> crash.at(CrashPoint.RELAY_AFTER_PUBLISH));
  }

  private static CrashInjector crashInjector(InboxOutboxProperties.Chaos chaos) {
    if (chaos.getCrashPoints().isEmpty()) {
      return CrashInjector.NONE;
    }
    Path armingFile = chaos.getArmingFile();
    return armingFile == null
        ? CrashInjector.halting(chaos.getCrashPoints())
        : CrashInjector.halting(chaos.getCrashPoints(), () -> Files.exists(armingFile));
  }

  @Bean
  @ConditionalOnBean(OutboxRelay.class)
  RelayLifecycle outboxRelayLifecycle(OutboxRelay relay) {
    return new RelayLifecycle(relay);
  }

  @Bean
  @ConditionalOnMissingBean
  RetentionTotals retentionTotals() {
    return new RetentionTotals();
  }

  @Bean
  @ConditionalOnBooleanProperty(name = "inbox-outbox.retention.enabled", matchIfMissing = true)
  @ConditionalOnMissingBean
  RetentionCleaner retentionCleaner(
      DataSource dataSource, InboxOutboxProperties properties, SchemaReady schema) {
    InboxOutboxProperties.Retention retention = properties.getRetention();
    return RetentionCleaner.builder(dataSource)
        .batchSize(retention.getBatchSize())
        .maxBatchesPerRun(retention.getMaxBatchesPerRun())
        .pauseBetweenBatches(retention.getPauseBetweenBatches())
        .outboxKeep(retention.getOutboxKeep())
        .build();
  }

  @Bean
  @ConditionalOnBean(RetentionCleaner.class)
  RetentionLifecycle retentionLifecycle(
      RetentionCleaner cleaner, InboxOutboxProperties properties, RetentionTotals totals) {
    return new RetentionLifecycle(cleaner, properties.getRetention().getInterval(), totals);
  }

  /** Without Boot's DataSource auto-configuration (an application's own DataSource bean). */
  private static JdbcConnectionDetails fromProperties(Environment environment) {
    return new JdbcConnectionDetails() {
      @Override
      public String getJdbcUrl() {
        return environment.getProperty("spring.datasource.url");
      }

      @Override
      public String getUsername() {
        return environment.getProperty("spring.datasource.username");
      }

      @Override
      public String getPassword() {
        return environment.getProperty("spring.datasource.password");
      }
    };
  }

  private static String firstSet(String preferred, String fallback) {
    return preferred != null && !preferred.isBlank() ? preferred : fallback;
  }
}
