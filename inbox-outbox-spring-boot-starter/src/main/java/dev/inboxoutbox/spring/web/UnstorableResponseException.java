package dev.inboxoutbox.spring.web;

/**
 * An {@link IdempotentEndpoint} answered in a way that cannot be stored and replayed (too large,
 * rendered by a view, asynchronous, or sent before the transaction ended). Its transaction, claim
 * included, is rolled back.
 */
public final class UnstorableResponseException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  UnstorableResponseException(String message, Throwable cause) {
    super(message, cause);
  }
}
