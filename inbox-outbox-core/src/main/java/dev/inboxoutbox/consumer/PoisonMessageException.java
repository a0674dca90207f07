package dev.inboxoutbox.consumer;

import java.util.Objects;

/**
 * Thrown by a handler for a record that can never succeed: the record is dead-lettered with the
 * reason, nothing it did is committed, and the partition moves on.
 */
public final class PoisonMessageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final DeadLetterReason reason;

  public PoisonMessageException(DeadLetterReason reason, String detail) {
    super(detail);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  public static PoisonMessageException unknownType(String type) {
    return new PoisonMessageException(DeadLetterReason.UNKNOWN_TYPE, "unknown event type: " + type);
  }

  public static PoisonMessageException malformed(String detail) {
    return new PoisonMessageException(DeadLetterReason.MALFORMED_PAYLOAD, detail);
  }

  public DeadLetterReason reason() {
    return reason;
  }
}
