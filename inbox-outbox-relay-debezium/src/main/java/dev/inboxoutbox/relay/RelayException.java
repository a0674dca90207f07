package dev.inboxoutbox.relay;

/** A relay run failed; the relay logs it, backs off and restarts. */
public final class RelayException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RelayException(String message) {
    super(message);
  }

  RelayException(String message, Throwable cause) {
    super(message, cause);
  }
}
