package dev.inboxoutbox.relay;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Configuration of an {@link OutboxRelay}. Only the database URL and the Kafka bootstrap address
 * are required; see docs/relay.md for how it reads the outbox. The values are read by the relay
 * only.
 */
public final class RelaySettings {

  /** See {@link Builder#offsetFlushInterval(Duration)}. */
  public static final Duration DEFAULT_OFFSET_FLUSH_INTERVAL = Duration.ofSeconds(1);

  /** See {@link Builder#pollInterval(Duration)}. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(25);

  /** See {@link Builder#maxBatchSize(int)}; Debezium's own default. */
  public static final int DEFAULT_MAX_BATCH_SIZE = 2048;

  /** See {@link Builder#maxQueueSize(int)}; Debezium's own default. */
  public static final int DEFAULT_MAX_QUEUE_SIZE = 8192;

  /** See {@link Builder#publicationName(String)}; the publication the schema migration creates. */
  public static final String DEFAULT_PUBLICATION_NAME = "iox_outbox";

  /** See {@link Builder#topicReplacement(String)}. */
  public static final String DEFAULT_TOPIC_REPLACEMENT = "outbox.event.${routedByValue}";

  /** See {@link Builder#heartbeatInterval(Duration)}. */
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(10);

  /** See {@link Builder#standbyPollInterval(Duration)}. */
  public static final Duration DEFAULT_STANDBY_POLL_INTERVAL = Duration.ofMillis(500);

  /** See {@link Builder#restartBackoff(Duration, Duration)}. */
  public static final Duration DEFAULT_RESTART_BACKOFF_MIN = Duration.ofMillis(500);

  /** See {@link Builder#restartBackoff(Duration, Duration)}. */
  public static final Duration DEFAULT_RESTART_BACKOFF_MAX = Duration.ofSeconds(30);

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** Fixed, like the table the Outbox writes, the retention cleans and the migration publishes. */
  private static final String OUTBOX_TABLE = "public.outbox";

  // The builder stays flat because users and the starter set it value by value; the values are kept
  // in parts that change for different reasons, each validating its own.
  private final DatabaseAddress address;
  private final String kafkaBootstrapServers;
  private final Map<String, Object> producerProperties;
  private final String slotName;
  private final String publicationName;
  private final String topicReplacement;
  private final EngineTuning tuning;
  private final LeadershipTiming timing;
  private final boolean markPublished;

  private RelaySettings(Builder b) {
    this.address = DatabaseAddress.parse(b.jdbcUrl, b.user, b.password);
    this.kafkaBootstrapServers = require(b.kafkaBootstrapServers, "kafkaBootstrapServers");
    this.producerProperties = Map.copyOf(b.producerProperties);
    this.slotName = b.slotName != null ? b.slotName : defaultSlotName(address.database());
    requireMatches("slotName", slotName, IDENTIFIER);
    this.publicationName = b.publicationName;
    requireMatches("publicationName", publicationName, IDENTIFIER);
    this.topicReplacement = require(b.topicReplacement, "topicReplacement");
    this.tuning =
        new EngineTuning(b.offsetFlushInterval, b.pollInterval, b.maxBatchSize, b.maxQueueSize);
    this.timing =
        new LeadershipTiming(
            b.heartbeatInterval,
            b.standbyPollInterval,
            b.leadershipCheckInterval,
            b.restartBackoffMin,
            b.restartBackoffMax);
    this.markPublished = b.markPublished;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Replication slots are per cluster, not per database: the default name carries the database name
   * so two databases on one server never fight over a slot.
   */
  static String defaultSlotName(String database) {
    String cleaned = database.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    String name = "iox_outbox_" + cleaned;
    return name.length() > 63 ? name.substring(0, 63) : name;
  }

  DatabaseAddress address() {
    return address;
  }

  String kafkaBootstrapServers() {
    return kafkaBootstrapServers;
  }

  Map<String, Object> producerProperties() {
    return producerProperties;
  }

  String slotName() {
    return slotName;
  }

  String publicationName() {
    return publicationName;
  }

  String outboxTable() {
    return OUTBOX_TABLE;
  }

  String topicReplacement() {
    return topicReplacement;
  }

  EngineTuning tuning() {
    return tuning;
  }

  LeadershipTiming timing() {
    return timing;
  }

  boolean markPublished() {
    return markPublished;
  }

  // The checks below are shared with the parts RelaySettings composes, so that every refusal names
  // the builder setting the same way.

  static String require(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("relay setting " + name + " is required");
    }
    return value;
  }

  private static void requireMatches(String name, String value, Pattern pattern) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "relay setting " + name + " must match " + pattern.pattern() + ", got: " + value);
    }
  }

  static Duration positive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("relay setting " + name + " must be positive");
    }
    return value;
  }

  /** Debezium takes these in whole milliseconds: a shorter value would silently become 0. */
  static Duration wholeMillis(Duration value, String name) {
    positive(value, name);
    if (value.toMillis() < 1) {
      throw new IllegalArgumentException(
          "relay setting " + name + " must be at least 1 ms, got: " + value);
    }
    return value;
  }

  /** Builds {@link RelaySettings}. */
  public static final class Builder {
    private String jdbcUrl;
    private String user;
    private String password;
    private String kafkaBootstrapServers;
    private final Map<String, Object> producerProperties = new HashMap<>();
    private String slotName;
    private String publicationName = DEFAULT_PUBLICATION_NAME;
    private String topicReplacement = DEFAULT_TOPIC_REPLACEMENT;
    private Duration offsetFlushInterval = DEFAULT_OFFSET_FLUSH_INTERVAL;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private int maxQueueSize = DEFAULT_MAX_QUEUE_SIZE;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private Duration standbyPollInterval = DEFAULT_STANDBY_POLL_INTERVAL;
    private Duration leadershipCheckInterval = Duration.ofSeconds(1);
    private Duration restartBackoffMin = DEFAULT_RESTART_BACKOFF_MIN;
    private Duration restartBackoffMax = DEFAULT_RESTART_BACKOFF_MAX;
    private boolean markPublished = true;

    private Builder() {}

    /** The database holding the outbox, e.g. {@code jdbc:postgresql://db:5432/shop}. */
    public Builder jdbcUrl(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
      return this;
    }

    /** A role with the REPLICATION attribute (see the README for the least privileges). */
    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    public Builder kafkaBootstrapServers(String kafkaBootstrapServers) {
      this.kafkaBootstrapServers = kafkaBootstrapServers;
      return this;
    }

    /**
     * Extra KafkaProducer settings (security, compression, ...), as a Kafka client takes them
     * (strings, numbers, lists, classes); idempotence cannot be turned off.
     */
    public Builder producerProperty(String name, Object value) {
      this.producerProperties.put(name, value);
      return this;
    }

    /** Default {@code iox_outbox_<database>}. */
    public Builder slotName(String slotName) {
      this.slotName = slotName;
      return this;
    }

    /** Default {@code iox_outbox}, created by the schema migration. */
    public Builder publicationName(String publicationName) {
      this.publicationName = publicationName;
      return this;
    }

    /**
     * Topic name for an aggregate type; {@code ${routedByValue}} is the aggregate type. Default
     * {@code outbox.event.${routedByValue}}.
     */
    public Builder topicReplacement(String topicReplacement) {
      this.topicReplacement = topicReplacement;
      return this;
    }

    /**
     * How often acknowledged offsets are stored (and the slot advanced), Debezium's {@code
     * offset.flush.interval.ms}. A batch is published before its offsets are stored, but the write
     * runs on the relay's thread, so the batch after it waits for it (a few ms); a longer interval
     * means fewer writes and more events published again after a crash. Default 1 s.
     */
    public Builder offsetFlushInterval(Duration offsetFlushInterval) {
      this.offsetFlushInterval = offsetFlushInterval;
      return this;
    }

    /**
     * Debezium's {@code poll.interval.ms}: how long the engine waits for a batch to fill before it
     * hands over what it has (every batch short of {@link #maxBatchSize(int)} waits the whole
     * interval), and how long the connector pauses after finding the replication stream empty. It
     * bounds the time from commit to publish; a shorter interval makes more, smaller batches, each
     * with its own stamp and flush. Each quiet interval costs no query but an empty read of the
     * stream and, in Debezium's queue, a busy wait through the interval's last millisecond, so an
     * idle relay's CPU grows as the interval shrinks (docs/benchmarks.md#relay-idle). Default 25
     * ms; Debezium's own is 500 ms.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    /**
     * Debezium's {@code max.batch.size}: the most events handed over, published and acknowledged
     * together. Default 2048.
     */
    public Builder maxBatchSize(int maxBatchSize) {
      this.maxBatchSize = maxBatchSize;
      return this;
    }

    /**
     * Debezium's {@code max.queue.size}: events read from the slot but not yet handed over; the
     * connector stops reading while it is full. Must be larger than {@link #maxBatchSize(int)}.
     * Default 8192.
     */
    public Builder maxQueueSize(int maxQueueSize) {
      this.maxQueueSize = maxQueueSize;
      return this;
    }

    /**
     * How often the engine emits a heartbeat and writes a row to {@code iox_relay_heartbeat}; while
     * the outbox is quiet the slot is confirmed past WAL written by other databases and tables
     * within two intervals, so this bounds the WAL the slot holds. Default 10 s.
     */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /** How often a standby tries to take the leadership lock. Default 500 ms. */
    public Builder standbyPollInterval(Duration standbyPollInterval) {
      this.standbyPollInterval = standbyPollInterval;
      return this;
    }

    /** How often the leader checks its lock session is alive. Default 1 s. */
    public Builder leadershipCheckInterval(Duration leadershipCheckInterval) {
      this.leadershipCheckInterval = leadershipCheckInterval;
      return this;
    }

    /** First and largest pause before restarting a failed run (doubling). Default 500 ms, 30 s. */
    public Builder restartBackoff(Duration min, Duration max) {
      return restartBackoffMin(min).restartBackoffMax(max);
    }

    /** First pause before restarting a failed run; see {@link #restartBackoff}. */
    public Builder restartBackoffMin(Duration min) {
      this.restartBackoffMin = min;
      return this;
    }

    /** Largest pause before restarting a failed run; see {@link #restartBackoff}. */
    public Builder restartBackoffMax(Duration max) {
      this.restartBackoffMax = max;
      return this;
    }

    /** Stamp {@code published_at} on kept rows once acknowledged. Default true. */
    public Builder markPublished(boolean markPublished) {
      this.markPublished = markPublished;
      return this;
    }

    public RelaySettings build() {
      return new RelaySettings(this);
    }
  }
}
