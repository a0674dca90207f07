package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.IdempotentConsumer;
import dev.inboxoutbox.consumer.KeyExtractor;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.outbox.Outbox;
import io.micrometer.observation.ObservationRegistry;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.ExponentialBackOff;

/** Runs one listener container per {@link IdempotentConsumerDefinition}; exposes their counters. */
public final class IdempotentConsumers implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(IdempotentConsumers.class);

  private static final Set<ContainerProperties.AckMode> COMMITS_AFTER_THE_LISTENER =
      EnumSet.of(
          ContainerProperties.AckMode.BATCH,
          ContainerProperties.AckMode.TIME,
          ContainerProperties.AckMode.COUNT,
          ContainerProperties.AckMode.COUNT_TIME);

  private final Map<String, BatchProcessor> processorsByOperation = new LinkedHashMap<>();
  private final Map<String, ConcurrentMessageListenerContainer<?, ?>> containersByOperation =
      new LinkedHashMap<>();
  private volatile boolean running;

  IdempotentConsumers(
      List<IdempotentConsumerDefinition> definitions,
      ConcurrentKafkaListenerContainerFactory<?, ?> containerFactory,
      Map<String, Object> kafkaConsumerProperties,
      InboxOutboxProperties.ConsumerProperties defaults,
      TransactionRunner transactions,
      Inbox inbox,
      Outbox outbox,
      Producer<String, byte[]> deadLetterProducer,
      List<IdempotentConsumerCustomizer> customizers,
      BatchProcessor.Hooks hooks,
      ObservationRegistry observations) {
    for (IdempotentConsumerDefinition definition : definitions) {
      if (processorsByOperation.containsKey(definition.operation())) {
        throw new IllegalStateException(
            "two idempotent consumers share operation " + definition.operation());
      }
      ConsumerSettings.Builder builder =
          definition.customizer().apply(settingsFrom(defaults, definition.operation()));
      customizers.forEach(customizer -> customizer.customize(definition.operation(), builder));
      ConsumerSettings settings = builder.build();
      BatchProcessor.Builder processor =
          BatchProcessor.builder(settings)
              .transactions(transactions)
              .handler(definition.handler())
              .deadLetterProducer(deadLetterProducer)
              .inbox(inbox)
              .outbox(outbox)
              .hooks(hooks);
      if (observations != null) {
        processor.observationRegistry(observations);
      }
      BatchProcessor built = processor.build();
      processorsByOperation.put(definition.operation(), built);
      containersByOperation.put(
          definition.operation(),
          container(
              containerFactory, definition, settings, kafkaConsumerProperties, defaults, built));
    }
  }

  /** Without a single transaction manager, batches run on plain connections of the data source. */
  static TransactionRunner plainJdbc(DataSource dataSource) {
    log.info(
        "no single PlatformTransactionManager: consumer batches run in plain JDBC transactions, so"
            + " handlers must write through HandlerContext.connection() to commit with the claim");
    return TransactionRunner.fromDataSource(dataSource);
  }

  static ConsumerSettings.Builder settingsFrom(
      InboxOutboxProperties.ConsumerProperties defaults, String operation) {
    return ConsumerSettings.builder(operation)
        .keyExtractor(KeyExtractor.header(defaults.keyHeader()))
        .tenantHeader(blankToNull(defaults.tenantHeader()))
        .principalHeader(blankToNull(defaults.principalHeader()))
        .maxPayloadBytes(defaults.maxPayloadBytes())
        .tooOldPolicy(defaults.tooOldPolicy())
        .deadLetterSuffix(defaults.deadLetterSuffix())
        .retryBackoff(defaults.retryBackoffMin(), defaults.retryBackoffMax())
        .stuckAfter(defaults.stuckAfter());
  }

  /**
   * A container from the application's listener container factory, so {@code
   * spring.kafka.consumer.*}, {@code spring.kafka.listener.*} and container customizers apply. What
   * the guarantee rests on is set afterwards and wins: the group (the inbox scope), no auto-commit,
   * raw values, and an error handler that never skips a batch. The offset commit follows {@code
   * spring.kafka.listener.ack-mode} (BATCH when unset), always after the database commit.
   */
  private static ConcurrentMessageListenerContainer<?, ?> container(
      ConcurrentKafkaListenerContainerFactory<?, ?> containerFactory,
      IdempotentConsumerDefinition definition,
      ConsumerSettings settings,
      Map<String, Object> kafkaConsumerProperties,
      InboxOutboxProperties.ConsumerProperties defaults,
      BatchProcessor processor) {
    ConcurrentMessageListenerContainer<?, ?> container =
        containerFactory.createContainer(definition.topics().toArray(String[]::new));
    ContainerProperties containerProperties = container.getContainerProperties();
    // The consumer group is the inbox scope's operation: one group, one set of keys.
    containerProperties.setGroupId(definition.operation());
    requireCommitAfterTheListener(containerProperties.getAckMode());
    containerProperties.setMessageListener(new IdempotentBatchListener(processor));
    containerProperties.setConsumerRebalanceListener(
        ContainerRebalanceListener.chain(
            definition.operation(),
            processor.rebalanceListener(),
            containerProperties.getConsumerRebalanceListener()));
    Properties consumer = new Properties();
    consumer.putAll(containerProperties.getKafkaConsumerProperties());
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    if (!kafkaConsumerProperties.containsKey(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG)) {
      consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    }
    if (IdempotentConsumer.takesDefaultAssignor(kafkaConsumerProperties)
        && IdempotentConsumer.takesDefaultAssignor(consumer)) {
      consumer.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, IdempotentConsumer.DEFAULT_ASSIGNOR);
    }
    containerProperties.setKafkaConsumerProperties(consumer);
    if (defaults.concurrency() != null) {
      container.setConcurrency(defaults.concurrency());
    }
    container.setBeanName("iox-" + definition.operation());
    ExponentialBackOff backOff = new ExponentialBackOff(settings.retryBackoffMin().toMillis(), 2.0);
    backOff.setMaxInterval(settings.retryBackoffMax().toMillis());
    // Only a batch that cannot be finished reaches the error handler (records that cannot apply
    // are dead letters): a failing database, or a dead letter Kafka does not take. It retries for
    // as long as that lasts instead of skipping a batch; health and metrics show it.
    container.setCommonErrorHandler(new DefaultErrorHandler(backOff));
    return container;
  }

  /**
   * The container commits offsets itself, after the listener returned, so only records whose
   * database transaction committed are ever committed: BATCH (the factory's default) after every
   * poll; TIME, COUNT or COUNT_TIME ({@code spring.kafka.listener.ack-mode}, {@code ack-time},
   * {@code ack-count}) less often, which costs the broker fewer requests and, after a crash, only
   * more redeliveries, which the inbox absorbs. The manual modes would wait for an acknowledgement
   * the listener never gives (offsets never committed), and RECORD is meant for a record listener,
   * not this batch listener.
   */
  private static void requireCommitAfterTheListener(ContainerProperties.AckMode ackMode) {
    if (!COMMITS_AFTER_THE_LISTENER.contains(ackMode)) {
      throw new IllegalStateException(
          "spring.kafka.listener.ack-mode="
              + ackMode
              + " is not supported by idempotent consumers, whose batch listener acknowledges"
              + " nothing itself; use BATCH, TIME, COUNT or COUNT_TIME");
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /** Counters per operation. */
  public Map<String, ConsumerStats> stats() {
    Map<String, ConsumerStats> stats = new LinkedHashMap<>();
    processorsByOperation.forEach(
        (operation, processor) -> stats.put(operation, processor.stats()));
    return Collections.unmodifiableMap(stats);
  }

  /** The processor per operation, in definition order: its stats, settings and stuck state. */
  Map<String, BatchProcessor> processors() {
    return Collections.unmodifiableMap(processorsByOperation);
  }

  /** The listener containers, in definition order. */
  List<ConcurrentMessageListenerContainer<?, ?>> containers() {
    return List.copyOf(containersByOperation.values());
  }

  /**
   * The partitions each consumer of {@code operation}'s container holds now, by Kafka client id
   * (what {@code kafka-consumer-groups.sh --describe --members} shows as CLIENT-ID): the
   * container's own record of its assignment. Empty while the container is stopped.
   */
  Map<String, List<String>> assignment(String operation) {
    ConcurrentMessageListenerContainer<?, ?> container = containersByOperation.get(operation);
    if (container == null) {
      throw new IllegalArgumentException("no idempotent consumer for operation " + operation);
    }
    Map<String, List<String>> byClient = new TreeMap<>();
    container
        .getAssignmentsByClientId()
        .forEach(
            (clientId, partitions) ->
                byClient.put(
                    clientId, partitions.stream().map(Object::toString).sorted().toList()));
    return byClient;
  }

  @Override
  public void start() {
    containersByOperation.values().forEach(ConcurrentMessageListenerContainer::start);
    running = true;
  }

  @Override
  public void stop() {
    containersByOperation.values().forEach(ConcurrentMessageListenerContainer::stop);
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
