package dev.inboxoutbox.consumer;

/**
 * Why a record went to the dead-letter topic instead of being applied; {@link Headers} names the
 * headers that carry it, with the record's origin, on the dead letter.
 */
public enum DeadLetterReason {
  /** The payload is not the JSON the consumer expects. */
  MALFORMED_PAYLOAD,
  /**
   * No idempotency key, or one that is blank, too long, has control characters or is not UTF-8; or
   * a tenant or principal header that is too long or has control characters.
   */
  INVALID_KEY,
  /** The key was already used for a different payload; the original stays applied. */
  CONFLICT,
  /** The handler does not know the event type. */
  UNKNOWN_TYPE,
  /** The payload is larger than the configured limit. */
  OVERSIZE,
  /**
   * Older than the key retention: its key may already be deleted, so a repeat could not be told.
   */
  TOO_OLD,
  /** The handler failed for this record alone, not because of the database. */
  HANDLER_ERROR;

  /**
   * Headers of a dead letter, besides the original record's own headers (all UTF-8 text). The
   * headers spring-kafka's {@code DeadLetterPublishingRecoverer} writes ({@code kafka_dlt-*}) are
   * set too.
   */
  public static final class Headers {
    /** The {@link DeadLetterReason} name. */
    public static final String REASON = "iox-dlt-reason";

    /** What was wrong, for a person. */
    public static final String DETAIL = "iox-dlt-detail";

    public static final String ORIGINAL_TOPIC = "iox-dlt-original-topic";
    public static final String ORIGINAL_PARTITION = "iox-dlt-original-partition";
    public static final String ORIGINAL_OFFSET = "iox-dlt-original-offset";

    /** The key as extracted, when there was one. */
    public static final String IDEMPOTENCY_KEY = "iox-dlt-idempotency-key";

    /** The consumer's operation (its inbox scope). */
    public static final String CONSUMER = "iox-dlt-consumer";

    /**
     * Present when the value was left out because Kafka refused its size: the value's size in
     * bytes. The original stays readable at its topic, partition and offset.
     */
    public static final String VALUE_OMITTED_BYTES = "iox-dlt-value-omitted-bytes";

    private Headers() {}
  }
}
