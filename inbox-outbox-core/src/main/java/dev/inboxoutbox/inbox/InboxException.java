package dev.inboxoutbox.inbox;

import java.sql.SQLException;

/**
 * The database failed while claiming or completing. Transient by nature (connection lost,
 * serialization failure, timeout): roll the transaction back and retry the whole unit of work. The
 * {@link SQLException} cause carries the SQLSTATE.
 */
final class InboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InboxException(String message, SQLException cause) {
    super(cause == null ? message : message + ": " + cause.getMessage(), cause);
  }
}
