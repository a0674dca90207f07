package dev.inboxoutbox.consumer;

import java.sql.Connection;
import javax.sql.DataSource;

/**
 * Where a batch's database transaction comes from. The claim, the handler, its outbox events and
 * the outcomes all use the one connection handed to the work, so they commit or roll back together.
 *
 * <p>{@link #fromDataSource} is the plain-JDBC default. An application with its own transaction
 * management plugs it in here, so that a handler writing through that framework joins the batch's
 * transaction instead of committing on a connection of its own (the Spring Boot starter does this
 * on the application's {@code PlatformTransactionManager}).
 */
public interface TransactionRunner {

  /**
   * Runs {@code work} in one transaction with that transaction's connection: commits when it
   * returns, rolls back when it throws and rethrows what it threw. The connection belongs to the
   * runner; work never commits, rolls back or closes it.
   */
  <T> T inTransaction(Work<T> work) throws Exception;

  /**
   * Called from inside {@link #inTransaction} work: runs {@code listener} each time something
   * suspends that transaction before it ends (an inner transaction opened beside it). What is
   * written while it is suspended commits on its own, outside the batch. The default detects
   * nothing: only the runner holds a plain connection, so nothing else can suspend it.
   */
  default void onSuspend(Runnable listener) {}

  /**
   * A new connection from {@code dataSource} per transaction: auto-commit off, commit, rollback on
   * any exception, close.
   */
  static TransactionRunner fromDataSource(DataSource dataSource) {
    return new JdbcTransactionRunner(dataSource);
  }

  /** Database work inside a transaction it does not own. */
  @FunctionalInterface
  interface Work<T> {

    T run(Connection connection) throws Exception;
  }
}
