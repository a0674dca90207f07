package dev.inboxoutbox.consumer;

/**
 * The database failed in a way a retry may get past: the batch is to be retried, not dead-lettered.
 */
final class DatabaseUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  DatabaseUnavailableException(Exception cause) {
    super(BatchProcessor.describe(cause), cause);
  }
}
