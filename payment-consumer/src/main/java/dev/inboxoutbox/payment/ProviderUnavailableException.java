package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.RetryLaterException;

/**
 * The provider did not answer usefully (5xx, 409, 429, timeout, refused connection) within the
 * attempts of one delivery. The charge request must not be lost, so it is retried later rather than
 * dead-lettered: the batch rolls back, its partitions pause, and the same ChargeRequested comes
 * back with the same idempotency key, so the provider never charges twice.
 */
public final class ProviderUnavailableException extends RetryLaterException {
  private static final long serialVersionUID = 1L;

  public ProviderUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
