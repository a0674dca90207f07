package dev.inboxoutbox.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/** Guards shared by the inbox and the outbox; not part of the public API. */
public final class Transactions {

  private Transactions() {}

  /**
   * Refuses an auto-commit connection: a claim or an outbox row written outside the caller's
   * transaction would commit on its own, apart from the effect it belongs to.
   */
  public static void requireOpen(Connection connection, String component) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the "
              + component
              + " must run inside the caller's transaction: call setAutoCommit(false) first,"
              + " so it commits or rolls back with the state change it belongs to");
    }
  }
}
