package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Retention;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.relay.RelaySettings;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.retention.RetentionPolicy;
import dev.inboxoutbox.retention.RetentionScheduler;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
 *
 * <p>Extension points, as beans: {@link IdempotentConsumerCustomizer}s adjust each consumer's
 * settings, {@link BatchProcessor.Hooks} observe every consumer's batches and {@link
 * RelayListener}s the relay's published batches (fault injection, tests).
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
        Inbox.builder().retention(new Retention(settings.getOutcomeTtl(), settings.getKeyTtl()));
    settings
        .getOperations()
        .forEach(
            (operation, ttl) ->
                builder.retention(operation, new Retention(ttl.getOutcomeTtl(), ttl.getKeyTtl())));
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
    return BatchProcessor.newDeadLetterProducer(producer, "iox-dead-letters");
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
      ObjectProvider<IdempotentConsumerCustomizer> customizers,
      ObjectProvider<BatchProcessor.Hooks> hooks) {
    return new IdempotentConsumers(
        definitions.orderedStream().toList(),
        kafkaListenerContainerFactory,
        kafka.buildConsumerProperties(),
        properties.getConsumer(),
        transactionRunner.getIfAvailable(() -> IdempotentConsumers.plainJdbc(dataSource)),
        inbox,
        outbox,
        inboxOutboxDeadLetterProducer,
        customizers.orderedStream().toList(),
        allOf(hooks.orderedStream().toList()));
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
      ObjectProvider<RelayListener> listeners,
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
    List<RelayListener> relayListeners = listeners.orderedStream().toList();
    return new OutboxRelay(
        settings.build(), events -> relayListeners.forEach(listener -> listener.published(events)));
  }

  /** Every {@link BatchProcessor.Hooks} bean, called in order. */
  private static BatchProcessor.Hooks allOf(List<BatchProcessor.Hooks> hooks) {
    if (hooks.isEmpty()) {
      return BatchProcessor.Hooks.NONE;
    }
    return new BatchProcessor.Hooks() {
      @Override
      public void handlerReturned(IncomingMessage message) {
        hooks.forEach(hook -> hook.handlerReturned(message));
      }

      @Override
      public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
        hooks.forEach(hook -> hook.batchCommitted(records));
      }
    };
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
  RetentionScheduler retentionScheduler(
      DataSource dataSource,
      InboxOutboxProperties properties,
      RetentionTotals totals,
      SchemaReady schema) {
    InboxOutboxProperties.Retention retention = properties.getRetention();
    RetentionPolicy policy =
        RetentionPolicy.defaults()
            .withBatchSize(retention.getBatchSize())
            .withMaxBatchesPerRun(retention.getMaxBatchesPerRun())
            .withPauseBetweenBatches(retention.getPauseBetweenBatches())
            .withOutboxKeep(retention.getOutboxKeep());
    return new RetentionScheduler(
        new RetentionCleaner(dataSource, policy), retention.getInterval(), totals);
  }

  @Bean
  @ConditionalOnBean(RetentionScheduler.class)
  RetentionLifecycle retentionLifecycle(RetentionScheduler scheduler) {
    return new RetentionLifecycle(scheduler);
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
