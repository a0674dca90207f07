package dev.inboxoutbox.spring;

import static java.util.Objects.requireNonNullElse;

import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.ConsumerSettings.TooOldPolicy;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings under {@code inbox-outbox.*}; every one has a default that works. Bound once, through
 * the constructor, and immutable after.
 *
 * @param schema The framework's tables.
 * @param inbox Key lifetimes, by default and per operation.
 * @param outbox The outbox writer.
 * @param consumer Defaults for every idempotent consumer.
 * @param relay The Debezium outbox relay.
 * @param retention The periodic cleanup.
 */
@ConfigurationProperties("inbox-outbox")
public record InboxOutboxProperties(
    @DefaultValue SchemaProperties schema,
    @DefaultValue InboxProperties inbox,
    @DefaultValue OutboxProperties outbox,
    @DefaultValue ConsumerProperties consumer,
    @DefaultValue RelayProperties relay,
    @DefaultValue RetentionProperties retention) {

  /**
   * The framework's tables.
   *
   * @param migrate Apply the inbox/outbox Flyway migrations (history table iox_schema_history) at
   *     start-up.
   * @param waitForDatabase How long start-up tries the migration again while the database cannot be
   *     reached (connection refused or lost, server shutting down or starting up); 0 fails the
   *     start at once.
   */
  public record SchemaProperties(
      @DefaultValue("true") boolean migrate, @DefaultValue("0s") Duration waitForDatabase) {}

  /**
   * Key lifetimes, by default and per operation (scope). The defaults are those of {@link
   * Inbox.Retention#defaults()}.
   *
   * @param outcomeTtl How long a stored outcome body is replayed to duplicates.
   * @param keyTtl How long a key is remembered; messages older than this are too old to apply.
   * @param operations Overrides per operation, e.g.
   *     inbox-outbox.inbox.operations.payment-consumer.key-ttl=31d.
   */
  public record InboxProperties(
      Duration outcomeTtl, Duration keyTtl, Map<String, OperationTtl> operations) {

    public InboxProperties {
      outcomeTtl = requireNonNullElse(outcomeTtl, Inbox.Retention.DEFAULT_OUTCOME_TTL);
      keyTtl = requireNonNullElse(keyTtl, Inbox.Retention.DEFAULT_KEY_TTL);
      operations = operations == null ? Map.of() : Map.copyOf(operations);
    }
  }

  /**
   * Lifetimes of one operation's keys.
   *
   * @param outcomeTtl How long the outcome body is kept; unset, inbox-outbox.inbox.outcome-ttl.
   * @param keyTtl How long the key is kept; unset, inbox-outbox.inbox.key-ttl.
   */
  public record OperationTtl(Duration outcomeTtl, Duration keyTtl) {

    /** This operation's lifetimes; a part left unset is the application's default. */
    public Inbox.Retention over(InboxProperties defaults) {
      return Inbox.Retention.of(
          outcomeTtl == null ? defaults.outcomeTtl() : outcomeTtl,
          keyTtl == null ? defaults.keyTtl() : keyTtl);
    }
  }

  /**
   * The outbox writer.
   *
   * @param policy KEEP rows for inspection (retention deletes them) or DELETE_AFTER_INSERT.
   */
  public record OutboxProperties(@DefaultValue("keep") Outbox.Policy policy) {}

  /**
   * Defaults for every idempotent consumer (each definition may override in code).
   *
   * @param keyHeader Header carrying the idempotency key.
   * @param tenantHeader Header whose value scopes keys by tenant; empty = no tenant.
   * @param principalHeader Header whose value scopes keys by sender; empty = none.
   * @param maxPayloadBytes Larger payloads are dead-lettered as OVERSIZE.
   * @param tooOldPolicy What to do with a record older than its key TTL.
   * @param deadLetterSuffix Dead letters of topic t go to t + suffix.
   * @param retryBackoffMin First pause after a transient database failure (doubles).
   * @param retryBackoffMax Largest pause after transient database failures.
   * @param stuckAfter A partition whose batch keeps failing this long makes the consumer stuck
   *     (health DOWN); a dead letter Kafka refuses for good makes it stuck at once.
   * @param concurrency Listener threads per consumer definition (at most the partition count is
   *     useful); unset, the container factory's ({@code spring.kafka.listener.concurrency}, 1 by
   *     default).
   */
  public record ConsumerProperties(
      @DefaultValue(IdempotencyKey.HEADER) String keyHeader,
      @DefaultValue("") String tenantHeader,
      @DefaultValue("") String principalHeader,
      Integer maxPayloadBytes,
      TooOldPolicy tooOldPolicy,
      String deadLetterSuffix,
      Duration retryBackoffMin,
      Duration retryBackoffMax,
      Duration stuckAfter,
      Integer concurrency) {

    public ConsumerProperties {
      maxPayloadBytes =
          requireNonNullElse(maxPayloadBytes, ConsumerSettings.DEFAULT_MAX_PAYLOAD_BYTES);
      tooOldPolicy = requireNonNullElse(tooOldPolicy, ConsumerSettings.DEFAULT_TOO_OLD_POLICY);
      deadLetterSuffix =
          requireNonNullElse(deadLetterSuffix, ConsumerSettings.DEFAULT_DEAD_LETTER_SUFFIX);
      retryBackoffMin =
          requireNonNullElse(retryBackoffMin, ConsumerSettings.DEFAULT_RETRY_BACKOFF_MIN);
      retryBackoffMax =
          requireNonNullElse(retryBackoffMax, ConsumerSettings.DEFAULT_RETRY_BACKOFF_MAX);
      stuckAfter = requireNonNullElse(stuckAfter, ConsumerSettings.DEFAULT_STUCK_AFTER);
    }
  }

  /**
   * The Debezium outbox relay; off unless enabled. A setting left unset stays null here and the
   * relay takes its own default ({@code RelaySettings}, the relay module's): the module is
   * optional, so these properties cannot name its defaults.
   *
   * @param enabled Run the relay in this application (one instance per database leads, the others
   *     stand by).
   * @param jdbcUrl Database of the outbox; defaults to spring.datasource.url.
   * @param username A role with REPLICATION; defaults to spring.datasource.username.
   * @param password Defaults to spring.datasource.password.
   * @param slotName Default iox_outbox_ followed by the database name.
   * @param publicationName Created by the schema migration.
   * @param topicReplacement Topic per aggregate type; ${routedByValue} is the aggregate type.
   * @param offsetFlushInterval How often acknowledged offsets are stored (Debezium's
   *     offset.flush.interval.ms); the batch after each write waits for it, and a crash publishes
   *     again what was acknowledged since the last write.
   * @param pollInterval Debezium's poll.interval.ms: the longest wait for a batch to fill and the
   *     pause after an empty read of the replication stream; bounds commit-to-publish latency.
   * @param maxBatchSize Debezium's max.batch.size: the most events published and acknowledged
   *     together.
   * @param maxQueueSize Debezium's max.queue.size: events read but not yet published; must be
   *     larger than max-batch-size.
   * @param heartbeatInterval How often the relay's heartbeat writes iox_relay_heartbeat; while the
   *     outbox is quiet the slot is confirmed past WAL written elsewhere within two intervals.
   * @param standbyPollInterval How often a standby tries to take leadership.
   * @param restartBackoffMin First pause before restarting a failed run (doubles).
   * @param restartBackoffMax Largest pause before restarting a failed run.
   */
  public record RelayProperties(
      @DefaultValue("false") boolean enabled,
      String jdbcUrl,
      String username,
      String password,
      String slotName,
      String publicationName,
      String topicReplacement,
      Duration offsetFlushInterval,
      Duration pollInterval,
      Integer maxBatchSize,
      Integer maxQueueSize,
      Duration heartbeatInterval,
      Duration standbyPollInterval,
      Duration restartBackoffMin,
      Duration restartBackoffMax) {

    /** The password is a secret: it stays out of logs and failure messages. */
    @Override
    public String toString() {
      return "RelayProperties[enabled=%s, jdbcUrl=%s, username=%s, password=%s, slotName=%s, publicationName=%s, topicReplacement=%s, offsetFlushInterval=%s, pollInterval=%s, maxBatchSize=%s, maxQueueSize=%s, heartbeatInterval=%s, standbyPollInterval=%s, restartBackoffMin=%s, restartBackoffMax=%s]"
          .formatted(
              enabled,
              jdbcUrl,
              username,
              password == null ? null : "******",
              slotName,
              publicationName,
              topicReplacement,
              offsetFlushInterval,
              pollInterval,
              maxBatchSize,
              maxQueueSize,
              heartbeatInterval,
              standbyPollInterval,
              restartBackoffMin,
              restartBackoffMax);
    }
  }

  /**
   * The periodic cleanup of expired keys, outcome bodies and published outbox rows.
   *
   * @param enabled Run the cleanup in this application (safe on several instances: batches skip
   *     locked rows).
   * @param interval Pause after a run that finished its work; a run that ended behind is followed
   *     at once (after pause-between-batches).
   * @param batchSize Rows per batch (each its own transaction).
   * @param runBudget How long one run may go on while it finds full batches, shared fairly between
   *     expired keys, outcome bodies and published outbox rows.
   * @param pauseBetweenBatches Sleep between batches, and between a run that ended behind and the
   *     next.
   * @param outboxKeep How long published outbox rows are kept.
   * @param overdueThreshold The retention health is DOWN once a step's oldest due row is overdue by
   *     more than this; unset, three intervals. Must be longer than the interval: between two runs
   *     rows fall due and wait up to one interval even while cleanup keeps up.
   */
  public record RetentionProperties(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("5m") Duration interval,
      Integer batchSize,
      Duration runBudget,
      Duration pauseBetweenBatches,
      Duration outboxKeep,
      Duration overdueThreshold) {

    public RetentionProperties {
      batchSize = requireNonNullElse(batchSize, RetentionCleaner.Builder.DEFAULT_BATCH_SIZE);
      runBudget = requireNonNullElse(runBudget, RetentionCleaner.Builder.DEFAULT_RUN_BUDGET);
      pauseBetweenBatches =
          requireNonNullElse(
              pauseBetweenBatches, RetentionCleaner.Builder.DEFAULT_PAUSE_BETWEEN_BATCHES);
      outboxKeep = requireNonNullElse(outboxKeep, RetentionCleaner.Builder.DEFAULT_OUTBOX_KEEP);
      requirePositive("interval", interval);
      requirePositive("run-budget", runBudget);
      if (overdueThreshold == null) {
        overdueThreshold = interval.multipliedBy(3);
      }
      requirePositive("overdue-threshold", overdueThreshold);
      if (overdueThreshold.compareTo(interval) <= 0) {
        throw new IllegalArgumentException(
            "inbox-outbox.retention.overdue-threshold ("
                + overdueThreshold
                + ") must be longer than inbox-outbox.retention.interval ("
                + interval
                + "): between two runs rows fall due and wait up to one interval even while"
                + " cleanup keeps up");
      }
    }

    private static void requirePositive(String property, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(
            "inbox-outbox.retention." + property + " must be positive; was " + value);
      }
    }
  }
}
