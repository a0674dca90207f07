package dev.inboxoutbox.consumer;

/**
 * Thrown by a handler when something it depends on is down for now (a provider answering 503, a
 * timeout): the batch rolls back, its partitions pause with backoff and the same records come back
 * later, instead of being dead-lettered. Database failures are recognised without it.
 */
public class RetryLaterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RetryLaterException(String message, Throwable cause) {
    super(message, cause);
  }
}
