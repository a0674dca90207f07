package dev.inboxoutbox.consumer;

/** One record cannot be applied; in a batch this sends the batch down to single records. */
final class RecordFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  private final DeadLetterReason reason;

  RecordFailedException(DeadLetterReason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  DeadLetterReason reason() {
    return reason;
  }
}
