package dev.inboxoutbox.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/** The plain-JDBC {@link TransactionRunner}: one connection of the data source per transaction. */
final class JdbcTransactionRunner implements TransactionRunner {

  private final DataSource dataSource;

  JdbcTransactionRunner(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (Throwable failure) {
        rollback(connection, failure);
        throw failure;
      }
    }
  }

  private static void rollback(Connection connection, Throwable failure) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      // The connection is closed next, which ends the transaction anyway; the original failure is
      // the one to report.
      failure.addSuppressed(rollbackFailure);
    }
  }
}
