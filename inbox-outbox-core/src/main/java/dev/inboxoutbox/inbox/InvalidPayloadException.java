package dev.inboxoutbox.inbox;

/** A payload could not be read as JSON, so it has no canonical form to hash. */
public final class InvalidPayloadException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  InvalidPayloadException(String message, Throwable cause) {
    super(message, cause);
  }
}
