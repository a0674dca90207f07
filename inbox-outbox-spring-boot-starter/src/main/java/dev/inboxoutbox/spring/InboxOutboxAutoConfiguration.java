package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.Retention;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.retention.RetentionCleaner;
import dev.inboxoutbox.spring.schema.InboxOutboxSchemaInitializer;
import io.micrometer.observation.ObservationRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Wires the plain-Java pieces of inbox-outbox into a Spring Boot application: schema migration,
 * {@link Inbox}, {@link Outbox}, one listener container per {@link IdempotentConsumerDefinition}
 * running its batches in the application's transaction manager, and the retention schedule. The
 * relay is {@link InboxOutboxRelayAutoConfiguration}'s.
 *
 * <p>Extension points, as beans: {@link IdempotentConsumerCustomizer}s adjust each consumer's
 * settings and {@link BatchProcessor.Hooks} observe every consumer's batches (fault injection,
 * tests); {@code RelayListener}s observe the relay's published batches.
 */
@AutoConfiguration(
    after = {
      DataSourceAutoConfiguration.class,
      KafkaAutoConfiguration.class,
      TransactionAutoConfiguration.class
    })
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(InboxOutboxProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class InboxOutboxAutoConfiguration {

  /**
   * {@code inbox-outbox.relay.enabled=true} without inbox-outbox-relay-debezium on the classpath
   * would start an application whose outbox nobody publishes: it fails to start instead.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty("inbox-outbox.relay.enabled")
  @ConditionalOnMissingClass("dev.inboxoutbox.relay.OutboxRelay")
  static class RelayModuleMissing {
    RelayModuleMissing() {
      throw new IllegalStateException(
          "inbox-outbox.relay.enabled=true, but the relay module is not on the classpath: add the"
              + " dependency dev.inboxoutbox:inbox-outbox-relay-debezium, or set"
              + " inbox-outbox.relay.enabled=false where Debezium Server or Kafka Connect relays"
              + " the outbox (docs/relay.md)");
    }
  }

  @Bean
  @ConditionalOnBooleanProperty(name = "inbox-outbox.schema.migrate", matchIfMissing = true)
  @ConditionalOnMissingBean
  InboxOutboxSchemaInitializer inboxOutboxSchemaInitializer(
      DataSource dataSource, InboxOutboxProperties properties) {
    return new InboxOutboxSchemaInitializer(dataSource, properties.schema().waitForDatabase());
  }

  @Bean
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  Inbox inbox(InboxOutboxProperties properties) {
    InboxOutboxProperties.InboxProperties settings = properties.inbox();
    Inbox.Builder builder =
        Inbox.builder().retention(Retention.of(settings.outcomeTtl(), settings.keyTtl()));
    settings
        .operations()
        .forEach((operation, ttl) -> builder.retention(operation, ttl.over(settings)));
    return builder.build();
  }

  @Bean
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  Outbox outbox(
      InboxOutboxProperties properties, ObjectProvider<ObservationRegistry> observations) {
    Outbox.Builder outbox = Outbox.builder().policy(properties.outbox().policy());
    // With Micrometer Tracing, an append inside a request or a consumed record continues its trace.
    observations.ifAvailable(outbox::observationRegistry);
    return outbox.build();
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

  /**
   * The dead-letter producer's factory, made as Boot makes its own ({@code
   * spring.kafka.producer.*}, the connection details, every {@link
   * DefaultKafkaProducerFactoryCustomizer}); what a dead letter rests on is set afterwards and
   * wins: idempotence, {@code acks=all}, raw values. The factory closes its producer when the
   * context closes. Not a default candidate: an application that asks for a {@code ProducerFactory}
   * by type gets its own or Boot's, never this one.
   */
  @Bean(defaultCandidate = false)
  @ConditionalOnBean(IdempotentConsumerDefinition.class)
  DefaultKafkaProducerFactory<String, byte[]> inboxOutboxDeadLetterProducerFactory(
      KafkaProperties kafka,
      KafkaConnectionDetails kafkaConnection,
      ObjectProvider<DefaultKafkaProducerFactoryCustomizer> customizers) {
    Map<String, Object> producer = new HashMap<>(kafka.buildProducerProperties());
    producer.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        kafkaConnection.getProducer().getBootstrapServers());
    DefaultKafkaProducerFactory<String, byte[]> factory =
        new DefaultKafkaProducerFactory<>(producer);
    customizers.orderedStream().forEach(customizer -> customizer.customize(factory));
    factory.updateConfigs(
        Map.of(
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.CLIENT_ID_CONFIG, "iox-dead-letters"));
    factory.setKeySerializer(new StringSerializer());
    factory.setValueSerializer(new ByteArraySerializer());
    return factory;
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
      @Qualifier("inboxOutboxDeadLetterProducerFactory")
          DefaultKafkaProducerFactory<String, byte[]> inboxOutboxDeadLetterProducerFactory,
      ObjectProvider<IdempotentConsumerCustomizer> customizers,
      ObjectProvider<BatchProcessor.Hooks> hooks,
      ObjectProvider<ObservationRegistry> observations) {
    return new IdempotentConsumers(
        definitions.orderedStream().toList(),
        kafkaListenerContainerFactory,
        kafka.buildConsumerProperties(),
        properties.consumer(),
        transactionRunner.getIfAvailable(() -> IdempotentConsumers.plainJdbc(dataSource)),
        inbox,
        outbox,
        inboxOutboxDeadLetterProducerFactory.createProducer(),
        customizers.orderedStream().toList(),
        allOf(hooks.orderedStream().toList()),
        observations.getIfAvailable(() -> null));
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
  @ConditionalOnMissingBean
  RetentionTotals retentionTotals() {
    return new RetentionTotals();
  }

  @Bean
  @ConditionalOnBooleanProperty(name = "inbox-outbox.retention.enabled", matchIfMissing = true)
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  RetentionCleaner retentionCleaner(DataSource dataSource, InboxOutboxProperties properties) {
    InboxOutboxProperties.RetentionProperties retention = properties.retention();
    return RetentionCleaner.builder(dataSource)
        .batchSize(retention.batchSize())
        .runBudget(retention.runBudget())
        .pauseBetweenBatches(retention.pauseBetweenBatches())
        .outboxKeep(retention.outboxKeep())
        .build();
  }

  @Bean
  @ConditionalOnBean(RetentionCleaner.class)
  RetentionLifecycle retentionLifecycle(
      RetentionCleaner cleaner, InboxOutboxProperties properties, RetentionTotals totals) {
    return new RetentionLifecycle(cleaner, properties.retention().interval(), totals);
  }
}
