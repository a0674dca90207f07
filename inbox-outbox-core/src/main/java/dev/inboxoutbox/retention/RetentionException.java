package dev.inboxoutbox.retention;

import java.sql.SQLException;

/** A cleanup phase failed; what was already committed stays cleaned. */
public final class RetentionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RetentionException(String message, SQLException cause) {
    super(message + ": " + cause.getMessage(), cause);
  }
}
