package dev.inboxoutbox.consumer;

import java.time.Duration;
import java.util.Objects;

/** How an idempotent consumer finds keys and scopes and treats bad records. */
public final class ConsumerSettings {

  /**
   * What to do with a record older than its scope's key retention: its key may already have been
   * deleted, so the inbox could no longer recognise it as a repeat.
   */
  public enum TooOldPolicy {
    /** Dead-letter it with reason {@link DeadLetterReason#TOO_OLD} (default). */
    DEAD_LETTER,
    /**
     * Apply it anyway; counted and logged as a warning. Only for consumers whose effect is harmless
     * to repeat.
     */
    APPLY
  }

  /** See {@link Builder#maxPayloadBytes(int)}. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

  /** See {@link Builder#tooOldPolicy(TooOldPolicy)}. */
  public static final TooOldPolicy DEFAULT_TOO_OLD_POLICY = TooOldPolicy.DEAD_LETTER;

  /** See {@link Builder#deadLetterSuffix(String)}. */
  public static final String DEFAULT_DEAD_LETTER_SUFFIX = ".DLT";

  /** See {@link Builder#retryBackoff(Duration, Duration)}. */
  public static final Duration DEFAULT_RETRY_BACKOFF_MIN = Duration.ofMillis(200);

  /** See {@link Builder#retryBackoff(Duration, Duration)}. */
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(10);

  /** See {@link Builder#stuckAfter(Duration)}. */
  public static final Duration DEFAULT_STUCK_AFTER = Duration.ofMinutes(1);

  private final String operation;
  private final String tenantHeader;
  private final String principalHeader;
  private final KeyExtractor keyExtractor;
  private final int maxPayloadBytes;
  private final TooOldPolicy tooOldPolicy;
  private final String deadLetterSuffix;
  private final Duration retryBackoffMin;
  private final Duration retryBackoffMax;
  private final Duration stuckAfter;

  private ConsumerSettings(Builder b) {
    if (b.operation == null || b.operation.isBlank()) {
      throw new IllegalArgumentException(
          "consumer setting operation (the inbox scope) is required");
    }
    this.operation = b.operation;
    this.tenantHeader = b.tenantHeader;
    this.principalHeader = b.principalHeader;
    this.keyExtractor = Objects.requireNonNull(b.keyExtractor, "keyExtractor");
    if (b.maxPayloadBytes <= 0) {
      throw new IllegalArgumentException("maxPayloadBytes must be positive");
    }
    this.maxPayloadBytes = b.maxPayloadBytes;
    this.tooOldPolicy = Objects.requireNonNull(b.tooOldPolicy, "tooOldPolicy");
    if (b.deadLetterSuffix == null || b.deadLetterSuffix.isEmpty()) {
      throw new IllegalArgumentException("deadLetterSuffix must not be empty");
    }
    this.deadLetterSuffix = b.deadLetterSuffix;
    this.retryBackoffMin = Objects.requireNonNull(b.retryBackoffMin, "retryBackoffMin");
    this.retryBackoffMax = Objects.requireNonNull(b.retryBackoffMax, "retryBackoffMax");
    if (retryBackoffMin.isNegative()
        || retryBackoffMin.isZero()
        || retryBackoffMax.compareTo(retryBackoffMin) < 0) {
      throw new IllegalArgumentException("retry backoff must be positive with max >= min");
    }
    this.stuckAfter = Objects.requireNonNull(b.stuckAfter, "stuckAfter");
    if (stuckAfter.isNegative() || stuckAfter.isZero()) {
      throw new IllegalArgumentException("stuckAfter must be positive");
    }
  }

  public static Builder builder(String operation) {
    return new Builder().operation(operation);
  }

  public String operation() {
    return operation;
  }

  public String tenantHeader() {
    return tenantHeader;
  }

  public String principalHeader() {
    return principalHeader;
  }

  public KeyExtractor keyExtractor() {
    return keyExtractor;
  }

  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  public TooOldPolicy tooOldPolicy() {
    return tooOldPolicy;
  }

  public String deadLetterSuffix() {
    return deadLetterSuffix;
  }

  public Duration retryBackoffMin() {
    return retryBackoffMin;
  }

  public Duration retryBackoffMax() {
    return retryBackoffMax;
  }

  public Duration stuckAfter() {
    return stuckAfter;
  }

  /** Builds {@link ConsumerSettings}. */
  public static final class Builder {
    private String operation;
    private String tenantHeader;
    private String principalHeader;
    private KeyExtractor keyExtractor = KeyExtractor.idempotencyKeyHeader();
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private TooOldPolicy tooOldPolicy = DEFAULT_TOO_OLD_POLICY;
    private String deadLetterSuffix = DEFAULT_DEAD_LETTER_SUFFIX;
    private Duration retryBackoffMin = DEFAULT_RETRY_BACKOFF_MIN;
    private Duration retryBackoffMax = DEFAULT_RETRY_BACKOFF_MAX;
    private Duration stuckAfter = DEFAULT_STUCK_AFTER;

    private Builder() {}

    /** The scope's operation: usually the consumer group or the use case ("order-consumer"). */
    public Builder operation(String operation) {
      this.operation = operation;
      return this;
    }

    /** A header whose value scopes keys by tenant; absent header = no tenant. Default none. */
    public Builder tenantHeader(String tenantHeader) {
      this.tenantHeader = tenantHeader;
      return this;
    }

    /** A header whose value scopes keys by sender/principal. Default none. */
    public Builder principalHeader(String principalHeader) {
      this.principalHeader = principalHeader;
      return this;
    }

    /** Default: the {@code Idempotency-Key} header. */
    public Builder keyExtractor(KeyExtractor keyExtractor) {
      this.keyExtractor = keyExtractor;
      return this;
    }

    /** The extractor set so far, so that a customizer can decorate it. */
    public KeyExtractor keyExtractor() {
      return keyExtractor;
    }

    /** Larger payloads are dead-lettered as OVERSIZE. Default 1 MiB. */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /** Default {@link TooOldPolicy#DEAD_LETTER}. */
    public Builder tooOldPolicy(TooOldPolicy tooOldPolicy) {
      this.tooOldPolicy = tooOldPolicy;
      return this;
    }

    /** Dead letters of topic {@code t} go to {@code t + suffix}. Default {@code .DLT}. */
    public Builder deadLetterSuffix(String deadLetterSuffix) {
      this.deadLetterSuffix = deadLetterSuffix;
      return this;
    }

    /** Pause after a transient failure (database or Kafka), doubling. Default 200 ms to 10 s. */
    public Builder retryBackoff(Duration min, Duration max) {
      this.retryBackoffMin = min;
      this.retryBackoffMax = max;
      return this;
    }

    /**
     * A partition whose batch keeps failing this long counts as stuck ({@link
     * BatchProcessor#stuck()}, the starter's health and metrics), and so does one whose batch has
     * neither failed nor finished for this long (a handler waiting on a lock or a call). A failure
     * no retry can fix, such as a dead letter Kafka refuses for good, is stuck at once. Default 1
     * minute.
     */
    public Builder stuckAfter(Duration stuckAfter) {
      this.stuckAfter = stuckAfter;
      return this;
    }

    public ConsumerSettings build() {
      return new ConsumerSettings(this);
    }
  }
}
