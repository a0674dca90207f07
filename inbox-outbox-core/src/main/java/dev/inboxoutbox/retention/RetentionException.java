package dev.inboxoutbox.retention;

import java.sql.SQLException;

/**
 * A cleanup step failed in the database. Batches committed before the failure stay cleaned; the
 * next run carries on from there.
 */
final class RetentionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  RetentionException(String message, SQLException cause) {
    super(message + ": " + cause.getMessage(), cause);
  }
}
