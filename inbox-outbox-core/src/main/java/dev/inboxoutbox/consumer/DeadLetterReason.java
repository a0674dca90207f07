package dev.inboxoutbox.consumer;

/** Why a record went to the dead-letter topic instead of being applied. */
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
  HANDLER_ERROR
}
