package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.IdempotencyKey.InvalidKeyException;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.ClaimRequest;
import dev.inboxoutbox.inbox.Inbox.ClaimResult;
import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.outbox.Outbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

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

  private final TransactionRunner transactions;
  private final Inbox inbox;
  private final Outbox outbox;
  private final ConsumerSettings settings;
  private final MessageHandler handler;
  private final DeadLetterPublisher deadLetters;
  private final ConsumerStats stats;
  private final CrashInjector crashInjector;

  private BatchProcessor(Builder b) {
    this.transactions = transactionsOf(b);
    this.settings = Objects.requireNonNull(b.settings, "settings");
    this.handler = Objects.requireNonNull(b.handler, "handler");
    this.inbox = b.inbox;
    this.outbox = b.outbox;
    this.stats = b.stats;
    this.deadLetters =
        new DeadLetterPublisher(
            new DeadLetters(
                Objects.requireNonNull(b.deadLetterProducer, "deadLetterProducer"),
                settings.deadLetterSuffix(),
                settings.operation()),
            stats);
    this.crashInjector = b.crashInjector;
  }

  public static Builder builder() {
    return new Builder();
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
   * Processes records in the order given (per-partition order is kept). Returns when each record is
   * applied, absorbed as a duplicate, or dead-lettered.
   *
   * @throws TransientFailureException when the database or Kafka fails in a way a retry may get
   *     past; records before {@link BatchIncompleteException#resumeAt()} are done
   * @throws DeadLetterUndeliverableException when Kafka refuses a dead letter for a reason no retry
   *     fixes; logged at ERROR, the batch is still to be retried
   */
  public void process(List<ConsumerRecord<String, byte[]>> records)
      throws BatchIncompleteException, InterruptedException {
    if (records.isEmpty()) {
      return;
    }
    stats.batch();
    List<DeadLetters.Entry> rejected = new ArrayList<>();
    List<Prepared> valid = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      Prepared prepared = prepare(record);
      if (prepared.deadLetter != null) {
        rejected.add(prepared.deadLetter);
      } else {
        valid.add(prepared);
      }
    }
    Map<TopicPartition, Long> resumeAt = firstOffsets(records);
    try {
      try {
        rejected.addAll(applyInOneTransaction(valid));
      } catch (RecordFailedException batchFailure) {
        stats.batchFallback();
        log.info(
            "batch of {} failed ({}); retrying one record per transaction",
            valid.size(),
            batchFailure.getMessage());
        for (Prepared one : valid) {
          try {
            rejected.addAll(applyInOneTransaction(List.of(one)));
          } catch (RecordFailedException alone) {
            rejected.add(
                new DeadLetters.Entry(
                    one.record,
                    alone.reason,
                    alone.getMessage(),
                    one.message.idempotencyKey().value(),
                    alone.getCause()));
          }
        }
      }
    } catch (DatabaseUnavailableException e) {
      stats.transientFailure();
      String message = "transient failure, retrying later: " + e.getMessage();
      stats.failed(resumeAt.keySet(), message, true, Instant.now());
      throw new TransientFailureException(message, e.getCause(), resumeAt);
    }
    deadLetters.publish(rejected, resumeAt);
    stats.records(records.size());
    stats.succeeded(resumeAt.keySet());
  }

  /** Returns the dead letters the transaction produced (conflicts); throws if a record failed. */
  private List<DeadLetters.Entry> applyInOneTransaction(List<Prepared> batch)
      throws RecordFailedException, DatabaseUnavailableException {
    if (batch.isEmpty()) {
      return List.of();
    }
    List<DeadLetters.Entry> conflicts = new ArrayList<>();
    List<Applied> applied = new ArrayList<>();
    try {
      transactions.inTransaction(
          connection -> {
            AtomicReference<IncomingMessage> inHandler = new AtomicReference<>();
            transactions.onSuspend(() -> suspendedDuring(inHandler.get()));
            List<ClaimResult> claims = claim(connection, batch);
            List<Inbox.Completion> completions = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
              Prepared prepared = batch.get(i);
              ClaimResult claim = claims.get(i);
              if (claim instanceof ClaimResult.Duplicate) {
                applied.add(new Applied(null, 0, 0, true));
              } else if (claim instanceof ClaimResult.Conflict conflict) {
                conflicts.add(
                    new DeadLetters.Entry(
                        prepared.record,
                        DeadLetterReason.CONFLICT,
                        "idempotency key already used for another payload (stored request hash "
                            + conflict.original().requestHash()
                            + ", this one "
                            + prepared.request.requestHash()
                            + ")",
                        prepared.message.idempotencyKey().value(),
                        null));
              } else {
                HandlerContext context = new HandlerContext(connection, outbox, prepared.message);
                long started = System.nanoTime();
                inHandler.set(prepared.message);
                Outcome outcome = runHandler(prepared, context);
                inHandler.set(null);
                applied.add(
                    new Applied(outcome, System.nanoTime() - started, context.emitted(), false));
                if (claim instanceof ClaimResult.New fresh) {
                  completions.add(Inbox.Completion.of(fresh, outcome));
                }
              }
            }
            if (!completions.isEmpty() && settings.dedupEnabled()) {
              inbox.completeAll(connection, completions);
            }
            return null;
          });
    } catch (RecordFailedException e) {
      throw e;
    } catch (Exception e) {
      if (Transience.isTransient(e)) {
        throw new DatabaseUnavailableException(e);
      }
      throw new RecordFailedException(DeadLetterReason.HANDLER_ERROR, describe(e), e);
    }
    for (Applied done : applied) {
      if (done.duplicate) {
        stats.duplicate();
      } else {
        stats.applied(done.outcome.isRejection(), done.nanos, done.emitted);
      }
    }
    return conflicts;
  }

  /**
   * An inner transaction (REQUIRES_NEW, NOT_SUPPORTED) suspended the batch's: what the handler
   * writes until it resumes commits on its own, so a rollback of the batch no longer undoes it.
   */
  private void suspendedDuring(IncomingMessage message) {
    stats.transactionSuspended();
    if (message == null) {
      log.warn("{}: the batch transaction was suspended outside a handler", settings.operation());
      return;
    }
    log.warn(
        "{}: the handler suspended the batch transaction while applying {}-{}@{} (key {}); what it"
            + " writes in the inner transaction (REQUIRES_NEW, NOT_SUPPORTED) commits on its own,"
            + " outside the exactly-once guarantee",
        settings.operation(),
        message.topic(),
        message.partition(),
        message.offset(),
        message.idempotencyKey().value());
  }

  private List<ClaimResult> claim(Connection connection, List<Prepared> batch) {
    if (!settings.dedupEnabled()) {
      // The negative control: with the inbox off every record counts as new.
      List<ClaimResult> unguarded = new ArrayList<>(batch.size());
      batch.forEach(p -> unguarded.add(new ClaimResult.New(p.request)));
      return unguarded;
    }
    List<ClaimRequest> requests = new ArrayList<>(batch.size());
    batch.forEach(p -> requests.add(p.request));
    return inbox.claimAll(connection, requests);
  }

  private Outcome runHandler(Prepared prepared, HandlerContext context) throws Exception {
    try {
      crashInjector.at(CrashPoint.MID_HANDLER);
      Outcome outcome = handler.handle(prepared.message, context);
      if (outcome == null) {
        throw new IllegalStateException("handler returned no outcome");
      }
      return outcome;
    } catch (PoisonMessageException poison) {
      throw new RecordFailedException(poison.reason(), poison.getMessage(), poison);
    }
  }

  private Prepared prepare(ConsumerRecord<String, byte[]> record) {
    String keyText = null;
    try {
      byte[] value = record.value();
      if (value != null && value.length > settings.maxPayloadBytes()) {
        keyText = settings.keyExtractor().extract(record, null);
        return Prepared.rejected(
            record,
            DeadLetterReason.OVERSIZE,
            "payload has " + value.length + " bytes; the limit is " + settings.maxPayloadBytes(),
            keyText,
            null);
      }
      JsonNode payload;
      try {
        payload = ClaimRequest.parseJson(value);
      } catch (InvalidPayloadException e) {
        keyText = settings.keyExtractor().extract(record, null);
        return Prepared.rejected(
            record, DeadLetterReason.MALFORMED_PAYLOAD, e.getMessage(), keyText, e);
      }
      keyText = settings.keyExtractor().extract(record, payload);
      IdempotencyKey key;
      try {
        key = IdempotencyKey.of(keyText);
      } catch (InvalidKeyException e) {
        return Prepared.rejected(
            record,
            DeadLetterReason.INVALID_KEY,
            e.getMessage(),
            keyText == null ? null : truncate(keyText),
            e);
      }
      Scope scope =
          Scope.of(
              header(record, settings.tenantHeader()),
              header(record, settings.principalHeader()),
              settings.operation());
      Instant timestamp = record.timestamp() < 0 ? null : Instant.ofEpochMilli(record.timestamp());
      Duration keyTtl = inbox.retentionFor(settings.operation()).keyTtl();
      if (timestamp != null && timestamp.isBefore(Instant.now().minus(keyTtl))) {
        if (settings.tooOldPolicy() == TooOldPolicy.DEAD_LETTER) {
          return Prepared.rejected(
              record,
              DeadLetterReason.TOO_OLD,
              "record from "
                  + timestamp
                  + " is older than the key retention of "
                  + keyTtl
                  + "; its key may be gone, so a repeat could not be recognised",
              keyText,
              null);
        }
        stats.tooOldApplied();
        log.warn(
            "applying record {}-{}@{} older than the key retention ({})",
            record.topic(),
            record.partition(),
            record.offset(),
            keyTtl);
      }
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header header : record.headers()) {
        headers.put(
            header.key(),
            header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
      }
      Optional<String> type = Optional.ofNullable(headers.get("type"));
      if (type.isEmpty() && payload.hasNonNull("type")) {
        JsonNode typeField = payload.get("type");
        // Jackson 3 refuses to coerce an object or array to text; it has none, as before.
        type = Optional.of(typeField.isContainer() ? "" : typeField.asString());
      }
      IncomingMessage message =
          new IncomingMessage(
              record.topic(),
              record.partition(),
              record.offset(),
              timestamp == null ? Instant.EPOCH : timestamp,
              record.key(),
              key,
              scope,
              type,
              payload,
              headers);
      return new Prepared(record, message, ClaimRequest.ofJson(scope, key, payload), null);
    } catch (RuntimeException e) {
      // A scope header that is too long, an extractor that throws: the record is bad, not the
      // system.
      return Prepared.rejected(record, DeadLetterReason.INVALID_KEY, describe(e), keyText, e);
    }
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    if (name == null) {
      return "";
    }
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? ""
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static Map<TopicPartition, Long> firstOffsets(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<TopicPartition, Long> first = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      first.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
    }
    return first;
  }

  private static String truncate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  private record Prepared(
      ConsumerRecord<String, byte[]> record,
      IncomingMessage message,
      ClaimRequest request,
      DeadLetters.Entry deadLetter) {

    /** A record refused before its claim; {@code cause} is the exception that said why, if any. */
    static Prepared rejected(
        ConsumerRecord<String, byte[]> record,
        DeadLetterReason reason,
        String detail,
        String key,
        Throwable cause) {
      return new Prepared(
          record, null, null, new DeadLetters.Entry(record, reason, detail, key, cause));
    }
  }

  private record Applied(Outcome outcome, long nanos, int emitted, boolean duplicate) {}

  /** One record cannot be applied; in a batch this sends the batch down to single records. */
  private static final class RecordFailedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final DeadLetterReason reason;

    RecordFailedException(DeadLetterReason reason, String message, Throwable cause) {
      super(message, cause);
      this.reason = reason;
    }
  }

  private static final class DatabaseUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    DatabaseUnavailableException(Exception cause) {
      super(describe(cause), cause);
    }
  }

  /**
   * Builds a {@link BatchProcessor}; transactions (or a data source), settings, handler and
   * dead-letter producer are required.
   */
  public static final class Builder {
    private DataSource dataSource;
    private TransactionRunner transactions;
    private ConsumerSettings settings;
    private MessageHandler handler;
    private Producer<String, byte[]> deadLetterProducer;
    private Inbox inbox = Inbox.builder().build();
    private Outbox outbox = Outbox.builder().build();
    private ConsumerStats stats = new ConsumerStats();
    private CrashInjector crashInjector = CrashInjector.NONE;

    private Builder() {}

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

    public Builder settings(ConsumerSettings settings) {
      this.settings = settings;
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

    public Builder stats(ConsumerStats stats) {
      this.stats = Objects.requireNonNull(stats, "stats");
      return this;
    }

    public Builder crashInjector(CrashInjector crashInjector) {
      this.crashInjector = Objects.requireNonNull(crashInjector, "crashInjector");
      return this;
    }

    public BatchProcessor build() {
      return new BatchProcessor(this);
    }
  }
}
