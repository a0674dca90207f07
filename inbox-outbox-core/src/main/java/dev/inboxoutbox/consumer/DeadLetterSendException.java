package dev.inboxoutbox.consumer;

/** Kafka did not take a dead letter; {@link #failure()} tells whether sending it again can help. */
final class DeadLetterSendException extends Exception {
  private static final long serialVersionUID = 1L;

  private final SendFailure failure;

  DeadLetterSendException(String message, Throwable cause, SendFailure failure) {
    super(message + ": " + cause, cause);
    this.failure = failure;
  }

  SendFailure failure() {
    return failure;
  }
}
