package dev.inboxoutbox.inbox;

/** A key was missing or malformed; nothing was written. {@link #reason()} says which. */
public final class InvalidIdempotencyKeyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Why a key was refused. */
  public enum Reason {
    MISSING,
    BLANK,
    TOO_LONG,
    CONTROL_CHARACTER,
    /** The header's octets are not valid UTF-8. */
    NOT_UTF8
  }

  private final Reason reason;

  InvalidIdempotencyKeyException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
