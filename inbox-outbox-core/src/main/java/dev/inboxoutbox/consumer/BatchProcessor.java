package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.outbox.Outbox;
import io.micrometer.observation.ObservationRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a polled batch exactly once per key, independent of how records are polled (plain
 * KafkaConsumer or a spring-kafka batch listener).
 *
 * <p>One database transaction claims every key of the batch in one statement, runs the handler for
 * the new ones, records their outcomes and commits. If a handler fails, the transaction rolls back
 * and the batch is retried one record per transaction, so one bad record never blocks the others:
 * alone, it is dead-lettered. Dead letters are acknowledged by Kafka before this returns; the
 * caller commits the offsets afterwards.
 *
 * <p>A batch that cannot be finished is thrown back ({@link BatchIncompleteException}) to be
 * retried, never skipped; each failed attempt is recorded per partition in {@link
 * ConsumerStats#failure()}, and {@link #stuck()} tells when that has gone on too long.
 */
public final class BatchProcessor {

  private static final Logger log = LoggerFactory.getLogger(BatchProcessor.class);

  private final ConsumerSettings settings;
  private final ConsumerStats stats;
  private final RecordValidator validator;
  private final ClaimAndApply unitOfWork;
  private final SingleRecordFallback fallback;
  private final DeadLetterPublisher deadLetters;
  private final Hooks hooks;

  private BatchProcessor(Builder b) {
    TransactionRunner transactions = transactionsOf(b);
    this.settings = Objects.requireNonNull(b.settings, "settings");
    MessageHandler handler = Objects.requireNonNull(b.handler, "handler");
    this.stats = new ConsumerStats(settings.stuckAfter());
    this.hooks = b.hooks;
    this.validator = new RecordValidator(settings, b.inbox, stats);
    if (!b.inbox.deduplicates()) {
      log.warn(
          "{}: the inbox is off (Inbox.off()): every delivery is applied, repeats too, and no"
              + " outcome is stored; it exists to measure what the inbox costs",
          settings.operation());
    }
    RecordTracing tracing =
        b.observations == null
            ? RecordTracing.OFF
            : new ObservedRecords(b.observations, settings.operation());
    this.unitOfWork =
        new ClaimAndApply(
            transactions, b.inbox, b.outbox(), settings, handler, stats, hooks, tracing);
    this.fallback = new SingleRecordFallback(unitOfWork);
    this.deadLetters =
        new DeadLetterPublisher(
            new DeadLetters(
                Objects.requireNonNull(b.deadLetterProducer, "deadLetterProducer"),
                settings.deadLetterSuffix(),
                settings.operation()),
            stats,
            tracing);
  }

  /**
   * Processing for {@code operation}: the inbox scope whose keys the handler's effects are claimed
   * under (and, by default, the consumer group), with the other consumer settings at their
   * defaults.
   */
  public static Builder builder(String operation) {
    return builder(ConsumerSettings.builder(operation).build());
  }

  /** Processing with {@code settings}, which name the operation and how bad records are treated. */
  public static Builder builder(ConsumerSettings settings) {
    return new Builder(Objects.requireNonNull(settings, "settings"));
  }

  /**
   * A producer fit for dead letters, to share between processors: {@code properties} (at least
   * {@code bootstrap.servers}), then idempotence with {@code acks=all}, so a dead letter is neither
   * lost nor doubled by producer retries, and {@code clientId}. The caller closes it.
   */
  public static KafkaProducer<String, byte[]> newDeadLetterProducer(
      Map<String, ?> properties, String clientId) {
    return DeadLetters.newProducer(properties, clientId, Map.of());
  }

  private static TransactionRunner transactionsOf(Builder b) {
    if (b.transactions != null && b.dataSource != null) {
      throw new IllegalStateException(
          "set either a data source or a transaction runner: the runner already knows its connections");
    }
    if (b.dataSource != null) {
      return TransactionRunner.fromDataSource(b.dataSource);
    }
    return Objects.requireNonNull(b.transactions, "transactions (or a dataSource)");
  }

  public ConsumerStats stats() {
    return stats;
  }

  public ConsumerSettings settings() {
    return settings;
  }

  /**
   * The failure holding partitions back once it counts as stuck: failing for {@link
   * ConsumerSettings#stuckAfter()}, or at once for a failure no retry can fix.
   */
  public Optional<ConsumerStats.Failure> stuck() {
    return stats.failure().filter(failure -> failure.stuck(settings.stuckAfter(), Instant.now()));
  }

  /**
   * Call when partitions are revoked or lost: their failures are no longer this consumer's to
   * report.
   */
  public void partitionsRevoked(Collection<TopicPartition> partitions) {
    stats.forget(partitions);
  }

  /**
   * The listener to subscribe with (a Kafka consumer's or a listener container's): it calls {@link
   * #partitionsRevoked} for partitions revoked or lost. It logs nothing: whoever owns the consumer
   * logs the assignment ({@link IdempotentConsumer} and the Spring Boot starter's containers, at
   * INFO).
   */
  public ConsumerRebalanceListener rebalanceListener() {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        partitionsRevoked(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // nothing to set up: new partitions start without failures
      }
    };
  }

  /**
   * Processes records in the order given (per-partition order is kept). Returns when each record is
   * applied, absorbed as a duplicate, or dead-lettered.
   *
   * @throws BatchIncompleteException when the database or Kafka fails in a way a retry may get
   *     past, or Kafka refuses a dead letter for a reason no retry fixes (logged at ERROR, counted
   *     as stuck at once); records before {@link BatchIncompleteException#resumeAt()} are done, the
   *     rest is to be retried
   */
  public void process(List<ConsumerRecord<String, byte[]>> records)
      throws BatchIncompleteException, InterruptedException {
    if (records.isEmpty()) {
      return;
    }
    stats.batch();
    Map<TopicPartition, Long> resumeAt = firstOffsets(records);
    stats.batchStarted(resumeAt.keySet(), records.size(), Instant.now());
    try {
      processStarted(records, resumeAt);
    } finally {
      stats.batchEnded();
    }
  }

  private void processStarted(
      List<ConsumerRecord<String, byte[]>> records, Map<TopicPartition, Long> resumeAt)
      throws BatchIncompleteException, InterruptedException {
    List<DeadLetters.Entry> rejected = new ArrayList<>();
    List<ValidatedRecord> valid = new ArrayList<>();
    long validationStarted = System.nanoTime();
    for (ConsumerRecord<String, byte[]> record : records) {
      ValidatedRecord validated = validator.validate(record);
      if (validated.isRejected()) {
        rejected.add(validated.deadLetter());
      } else {
        valid.add(validated);
      }
    }
    stats.stageSince(ConsumerStats.Stage.VALIDATION, validationStarted);
    try {
      rejected.addAll(apply(valid));
    } catch (DatabaseUnavailableException e) {
      stats.transientFailure();
      String message = "transient failure, retrying later: " + e.getMessage();
      stats.failed(resumeAt.keySet(), message, true, Instant.now());
      throw new TransientFailureException(message, e.getCause(), resumeAt);
    }
    long sending = System.nanoTime();
    try {
      deadLetters.publish(rejected, resumeAt);
    } finally {
      stats.stageSince(ConsumerStats.Stage.DEAD_LETTERS, sending);
    }
    stats.records(records.size());
    stats.succeeded(resumeAt.keySet());
    hooks.batchCommitted(records);
  }

  /** The whole batch in one transaction; if a record fails, one transaction per record. */
  private List<DeadLetters.Entry> apply(List<ValidatedRecord> valid)
      throws DatabaseUnavailableException {
    try {
      return unitOfWork.inOneTransaction(valid);
    } catch (RecordFailedException batchFailure) {
      stats.batchFallback();
      log.info(
          "batch of {} failed ({}); retrying one record per transaction",
          valid.size(),
          batchFailure.getMessage());
      return fallback.applyOneByOne(valid);
    }
  }

  private static Map<TopicPartition, Long> firstOffsets(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<TopicPartition, Long> first = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      first.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
    }
    return first;
  }

  static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /**
   * A batch is not done: nothing after {@link #resumeAt()} was committed. The caller must not
   * commit further offsets, should back off, and resumes each partition at the given offset;
   * records before it are done. No record is ever skipped: a batch that keeps failing is retried,
   * and shows in {@link ConsumerStats#failure()} and {@link BatchProcessor#stuck()}.
   */
  public abstract static sealed class BatchIncompleteException extends Exception
      permits TransientFailureException, DeadLetterUndeliverableException {
    private static final long serialVersionUID = 1L;

    private final transient Map<TopicPartition, Long> resumeAt;

    BatchIncompleteException(String message, Throwable cause, Map<TopicPartition, Long> resumeAt) {
      super(message, cause);
      this.resumeAt = Map.copyOf(resumeAt);
    }

    /** Per partition of the batch: the offset of the first record not yet done. */
    public Map<TopicPartition, Long> resumeAt() {
      return resumeAt;
    }

    /** Whether a retry may get past it (database or Kafka away), unlike a refused dead letter. */
    public boolean transientFailure() {
      return this instanceof TransientFailureException;
    }
  }

  /**
   * Observes a batch at the two moments a crash tests the guarantee: fault-injection and tests
   * implement it, nothing in the library needs it. Hooks run on the consumer's thread. An exception
   * thrown from one is a failure the consumer retries in the same process, not a crash; a crash
   * test halts the process there ({@code Runtime.halt}).
   */
  public interface Hooks {

    /** Observes nothing: the default. */
    Hooks NONE = new Hooks() {};

    /**
     * The handler returned for {@code message}, inside the batch's transaction, before it commits.
     * An exception here is a handler failure: the transaction rolls back.
     */
    default void handlerReturned(IncomingMessage message) {}

    /**
     * The batch's transaction committed and its dead letters were acknowledged; the caller has not
     * committed the Kafka offsets yet. An exception here leaves the batch to be delivered again,
     * and the inbox absorbs what was applied.
     */
    default void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {}
  }

  /**
   * Builds a {@link BatchProcessor}; transactions (or a data source), handler and dead-letter
   * producer are required.
   */
  public static final class Builder {
    private final ConsumerSettings settings;
    private DataSource dataSource;
    private TransactionRunner transactions;
    private MessageHandler handler;
    private Producer<String, byte[]> deadLetterProducer;
    private Inbox inbox = Inbox.builder().build();
    private Outbox outbox;
    private Hooks hooks = Hooks.NONE;
    private ObservationRegistry observations;

    private Builder(ConsumerSettings settings) {
      this.settings = settings;
    }

    /** Shortcut for {@code transactions(TransactionRunner.fromDataSource(dataSource))}. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /**
     * Where each batch's transaction and its connection come from. No default: set this or {@link
     * #dataSource}.
     */
    public Builder transactions(TransactionRunner transactions) {
      this.transactions = transactions;
      return this;
    }

    public Builder handler(MessageHandler handler) {
      this.handler = handler;
      return this;
    }

    /**
     * An idempotent producer ({@code enable.idempotence=true}, {@code acks=all}) for dead letters.
     */
    public Builder deadLetterProducer(Producer<String, byte[]> deadLetterProducer) {
      this.deadLetterProducer = deadLetterProducer;
      return this;
    }

    public Builder inbox(Inbox inbox) {
      this.inbox = Objects.requireNonNull(inbox, "inbox");
      return this;
    }

    public Builder outbox(Outbox outbox) {
      this.outbox = Objects.requireNonNull(outbox, "outbox");
      return this;
    }

    /**
     * Observes each record: an {@code inbox.consume} observation continuing the trace of its {@code
     * traceparent} header, tagged with the inbox's decision ({@code new}, {@code duplicate}, {@code
     * conflict}, {@code dead-letter}); the handler runs inside it. The default outbox observes its
     * appends with the same registry; an outbox set with {@link #outbox} needs it too (its {@code
     * observationRegistry}), or the trace ends at this consumer's events. Needs {@code
     * io.micrometer:micrometer-observation} (an optional dependency); default: none.
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      this.observations = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** Observes each batch; default {@link Hooks#NONE}. */
    public Builder hooks(Hooks hooks) {
      this.hooks = Objects.requireNonNull(hooks, "hooks");
      return this;
    }

    public BatchProcessor build() {
      return new BatchProcessor(this);
    }

    ConsumerSettings settings() {
      return settings;
    }

    private Outbox outbox() {
      if (outbox != null) {
        return outbox;
      }
      Outbox.Builder defaults = Outbox.builder();
      return observations == null
          ? defaults.build()
          : defaults.observationRegistry(observations).build();
    }

    boolean hasDeadLetterProducer() {
      return deadLetterProducer != null;
    }
  }
}
