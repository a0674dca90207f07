package dev.inboxoutbox.outbox;

import java.sql.SQLException;

/** The database failed while appending to the outbox; roll the transaction back and retry. */
final class OutboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  OutboxException(String message, SQLException cause) {
    super(message + ": " + cause.getMessage(), cause);
  }
}
