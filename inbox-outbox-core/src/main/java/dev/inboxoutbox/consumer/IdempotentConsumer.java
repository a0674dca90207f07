package dev.inboxoutbox.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain kafka-clients consumer loop with exactly-once effects: poll, {@link BatchProcessor
 * process} the batch in one database transaction, then commit the offsets. A crash anywhere before
 * the offset commit redelivers the batch, and the inbox absorbs what was already applied.
 *
 * <p>On a transient database failure nothing more is committed: the affected partitions are rewound
 * and paused for a backoff (doubling up to the configured maximum) while the loop keeps polling, so
 * the group membership stays alive and nothing spins. A dead letter Kafka refuses for good is
 * retried the same way, never skipped, and reported at once by {@link #stuck()}.
 *
 * <pre>{@code
 * IdempotentConsumer consumer = IdempotentConsumer.builder(BatchProcessor.builder("order-consumer")
 *         .dataSource(dataSource)
 *         .handler((message, context) -> placeOrder(message, context)))
 *     .kafka(Map.of("bootstrap.servers", "kafka:9092"))
 *     .topics("orders")
 *     .build();
 * consumer.start();   // or run() on a thread of your own
 * }</pre>
 */
public final class IdempotentConsumer implements AutoCloseable {

  /**
   * The partition assignor used unless the Kafka properties name one: incremental cooperative
   * rebalancing, so a member joining or dying moves only its own partitions and every other member
   * keeps consuming. The eager default stops the whole group on every join and every expiry. A
   * group moving to it from an eager-only assignor needs two rolling restarts (Kafka's upgrade
   * path).
   */
  public static final String DEFAULT_ASSIGNOR = CooperativeStickyAssignor.class.getName();

  /**
   * Whether {@link #DEFAULT_ASSIGNOR} goes into a consumer built from {@code kafkaProperties}: not
   * when they name an assignor, and not under Kafka 4's consumer group protocol ({@code
   * group.protocol=consumer}), where the broker assigns and a client refuses any assignor set.
   */
  public static boolean takesDefaultAssignor(Map<?, ?> kafkaProperties) {
    Object protocol = kafkaProperties.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
    return !kafkaProperties.containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)
        && (protocol == null || !"consumer".equalsIgnoreCase(protocol.toString().trim()));
  }

  private static final Logger log = LoggerFactory.getLogger(IdempotentConsumer.class);

  private final Map<String, Object> kafkaProperties;
  private final List<String> topics;
  private final ConsumerSettings settings;
  private final BatchProcessor processor;
  private final KafkaProducer<String, byte[]> deadLetterProducer;
  private final ConsumerStats stats;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile boolean closing;
  private Thread thread;

  /** The thread running the loop, whether {@link #start()} made it or the caller lent it. */
  private volatile Thread loopThread;

  private IdempotentConsumer(Builder b) {
    this.kafkaProperties = new HashMap<>(Objects.requireNonNull(b.kafka, "kafka properties"));
    if (!kafkaProperties.containsKey(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      throw new IllegalArgumentException("kafka properties need bootstrap.servers");
    }
    this.settings = Objects.requireNonNull(b.processing.settings(), "settings");
    kafkaProperties.putIfAbsent(ConsumerConfig.GROUP_ID_CONFIG, settings.operation());
    if (b.topics.isEmpty()) {
      throw new IllegalArgumentException("at least one topic is required");
    }
    if (b.processing.hasDeadLetterProducer()) {
      throw new IllegalArgumentException(
          "the consumer makes its own dead-letter producer: configure it with"
              + " deadLetterProducerProperty instead of the processing's deadLetterProducer");
    }
    this.topics = List.copyOf(b.topics);
    this.deadLetterProducer =
        DeadLetters.newProducer(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafkaProperties.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)),
            settings.operation() + "-dead-letters",
            b.producerOverrides);
    try {
      this.processor = b.processing.deadLetterProducer(deadLetterProducer).build();
    } catch (RuntimeException refused) {
      // A consumer that is never built is never closed: its producer's thread would outlive it.
      deadLetterProducer.close(Duration.ofSeconds(5));
      throw refused;
    }
    this.stats = processor.stats();
  }

  /**
   * A consumer that polls {@code topics} and hands each batch to the processing described by {@code
   * processing} (transactions, settings, handler, inbox, outbox, hooks), with a dead-letter
   * producer of its own.
   */
  public static Builder builder(BatchProcessor.Builder processing) {
    return new Builder(Objects.requireNonNull(processing, "processing"));
  }

  public ConsumerStats stats() {
    return stats;
  }

  /** See {@link BatchProcessor#stuck()}: empty while every partition makes progress in time. */
  public Optional<ConsumerStats.Failure> stuck() {
    return processor.stuck();
  }

  /** Runs the loop on a new thread named after the operation. */
  public synchronized IdempotentConsumer start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    thread = new Thread(this::run, "iox-consumer-" + settings.operation());
    thread.start();
    return this;
  }

  /** Runs the loop on the calling thread until {@link #close()}. */
  public void run() {
    loopThread = Thread.currentThread();
    Map<String, Object> properties = new HashMap<>(kafkaProperties);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    if (takesDefaultAssignor(properties)) {
      properties.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, DEFAULT_ASSIGNOR);
    }
    try (KafkaConsumer<String, byte[]> kafka =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer = kafka;
      if (closing) {
        return;
      }
      kafka.subscribe(topics, loggingRebalances(processor.rebalanceListener()));
      loop(kafka);
    } catch (WakeupException e) {
      if (!closing) {
        throw e;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stopped.countDown();
    }
  }

  /**
   * {@code delegate}, with each assignment, revocation and loss logged at INFO in the words of
   * Spring Kafka's listener containers ({@code <group>: partitions assigned: [...]}), so instances
   * sharing a topic show their split the same way with or without Spring.
   */
  private ConsumerRebalanceListener loggingRebalances(ConsumerRebalanceListener delegate) {
    Object group = kafkaProperties.get(ConsumerConfig.GROUP_ID_CONFIG);
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        log.info("{}: partitions revoked: {}", group, partitions);
        delegate.onPartitionsRevoked(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        log.info("{}: partitions assigned: {}", group, partitions);
        delegate.onPartitionsAssigned(partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        log.info("{}: partitions lost: {}", group, partitions);
        delegate.onPartitionsLost(partitions);
      }
    };
  }

  private void loop(KafkaConsumer<String, byte[]> kafka) throws InterruptedException {
    Duration backoff = settings.retryBackoffMin();
    Instant resumeAt = null;
    while (!closing) {
      if (resumeAt != null && !Instant.now().isBefore(resumeAt)) {
        kafka.resume(kafka.paused());
        resumeAt = null;
      }
      long polling = System.nanoTime();
      ConsumerRecords<String, byte[]> polled = kafka.poll(Duration.ofMillis(100));
      if (polled.isEmpty()) {
        continue;
      }
      stats.stageSince(ConsumerStats.Stage.POLL, polling);
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>(polled.count());
      polled.forEach(records::add);
      try {
        processor.process(records);
        long committing = System.nanoTime();
        commit(kafka, nextOffsets(records));
        stats.stageSince(ConsumerStats.Stage.OFFSET_COMMIT, committing);
        backoff = settings.retryBackoffMin();
      } catch (BatchProcessor.BatchIncompleteException e) {
        if (e.transientFailure()) {
          log.warn(
              "{}; pausing {} partition(s) for {}", e.getMessage(), e.resumeAt().size(), backoff);
        } else {
          // Already logged at ERROR with its cause. Retried all the same: skipping would lose the
          // record.
          log.warn(
              "pausing {} partition(s) for {} before retrying the dead letter",
              e.resumeAt().size(),
              backoff);
        }
        Collection<TopicPartition> partitions = e.resumeAt().keySet();
        e.resumeAt().forEach(kafka::seek);
        kafka.pause(partitions);
        resumeAt = Instant.now().plus(backoff);
        backoff = min(backoff.multipliedBy(2), settings.retryBackoffMax());
      }
    }
  }

  static void commit(Consumer<?, ?> kafka, Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      kafka.commitSync(offsets);
    } catch (CommitFailedException e) {
      // The partitions moved to another member, which re-reads them; the inbox absorbs the repeats.
      log.info("offset commit refused after a rebalance; the new owner replays the batch");
    } catch (RebalanceInProgressException e) {
      // A cooperative rebalance is under way; the next poll completes it. Partitions this member
      // keeps are committed with its next batch, the others are re-read by their new owner and
      // absorbed by the inbox.
      log.info(
          "offset commit refused during a rebalance; a later commit or the new owner covers it");
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      offsets.put(
          new TopicPartition(record.topic(), record.partition()),
          new OffsetAndMetadata(record.offset() + 1));
    }
    return offsets;
  }

  /**
   * Stops polling after the current batch and waits for the loop to end, on whichever thread it
   * runs; then closes the dead-letter producer, which the batch may still be using until then.
   * Called from the loop's own thread (a handler), it cannot wait: the loop ends after the batch.
   */
  @Override
  public void close() {
    closing = true;
    KafkaConsumer<String, byte[]> current = consumer;
    if (current != null) {
      current.wakeup();
    }
    Thread running = loopThread;
    if (running != null && running != Thread.currentThread()) {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    deadLetterProducer.close(Duration.ofSeconds(5));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Builds an {@link IdempotentConsumer}: Kafka properties, topics, the dead-letter producer. */
  public static final class Builder {
    private final BatchProcessor.Builder processing;
    private Map<String, Object> kafka;
    private final Map<String, Object> producerOverrides = new HashMap<>();
    private final List<String> topics = new ArrayList<>();

    private Builder(BatchProcessor.Builder processing) {
      this.processing = processing;
    }

    /** Consumer properties: at least bootstrap.servers; group.id defaults to the operation. */
    public Builder kafka(Map<String, ?> properties) {
      this.kafka = new HashMap<>(properties);
      return this;
    }

    /** Extra settings for the dead-letter producer (security, ...). */
    public Builder deadLetterProducerProperty(String name, Object value) {
      this.producerOverrides.put(name, value);
      return this;
    }

    public Builder topics(String... topics) {
      this.topics.addAll(List.of(topics));
      return this;
    }

    public IdempotentConsumer build() {
      return new IdempotentConsumer(this);
    }
  }
}
