package dev.inboxoutbox.consumer;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * Tells a failing dependency (the database, or a handler's {@link RetryLaterException}: retry
 * later, same records) from a failing record (dead-letter it).
 */
final class Transience {

  private Transience() {}

  static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RetryLaterException
          || t instanceof SQLTransientException
          || t instanceof SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException sql && transientState(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Connection exceptions (08), serialization failures and deadlocks (40), resource shortages (53),
   * operator intervention such as a server shutdown (57P) and lock timeouts (55P03).
   */
  private static boolean transientState(String state) {
    if (state == null) {
      return false;
    }
    return state.startsWith("08")
        || state.startsWith("40")
        || state.startsWith("53")
        || state.startsWith("57P")
        || state.equals("55P03");
  }
}
