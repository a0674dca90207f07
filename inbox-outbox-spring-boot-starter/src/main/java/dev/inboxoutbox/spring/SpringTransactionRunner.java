package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.TransactionRunner;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs each consumer batch in a transaction of the application's {@link PlatformTransactionManager}
 * (propagation REQUIRED) and hands over the connection bound to it, so the claim, the handler's
 * {@code JdbcTemplate}, {@code JdbcClient}, Spring Data JDBC and {@code @Transactional} (REQUIRED,
 * SUPPORTS, MANDATORY, NESTED) writes, the outbox events and the outcomes commit or roll back
 * together.
 *
 * <p>The transaction manager must manage {@code dataSource} (a {@code
 * DataSourceTransactionManager}, or a {@code JpaTransactionManager} whose dialect exposes the JDBC
 * connection); otherwise no connection is bound to the transaction and the batch fails instead of
 * writing outside it. As a bean it checks that once the context's singletons exist, so such an
 * application fails to start rather than fail every record ({@link #requireBoundConnection}).
 */
public final class SpringTransactionRunner
    implements TransactionRunner, SmartInitializingSingleton {

  private static final Logger log = LoggerFactory.getLogger(SpringTransactionRunner.class);

  private final TransactionTemplate template;
  private final DataSource dataSource;

  public SpringTransactionRunner(
      PlatformTransactionManager transactionManager, DataSource dataSource) {
    this.template =
        new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRED);
    template.setName("inbox-outbox batch");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public void afterSingletonsInstantiated() {
    requireBoundConnection(template.getTransactionManager(), dataSource);
  }

  /**
   * Opens one transaction of {@code transactionManager} and fails when it binds no connection of
   * {@code dataSource}: the inbox would then claim on a connection of its own, outside the
   * transaction the application's writes run in. A database that cannot be reached yet is not a
   * verdict: the check is left to each transaction then.
   *
   * @throws IllegalStateException when the transaction manager binds no connection of {@code
   *     dataSource}
   */
  public static void requireBoundConnection(
      PlatformTransactionManager transactionManager, DataSource dataSource) {
    TransactionTemplate probe = new TransactionTemplate(transactionManager);
    probe.setName("inbox-outbox start-up check");
    boolean bound;
    try {
      bound =
          Boolean.TRUE.equals(
              probe.execute(
                  status -> {
                    status.setRollbackOnly();
                    Connection connection = DataSourceUtils.getConnection(dataSource);
                    try {
                      return !connection.getAutoCommit();
                    } catch (SQLException e) {
                      throw new CannotGetJdbcConnectionException("reading auto-commit", e);
                    } finally {
                      DataSourceUtils.releaseConnection(connection, dataSource);
                    }
                  }));
    } catch (TransactionException | DataAccessException unreachable) {
      log.warn(
          "cannot check at start-up that {} binds the inbox's connection ({}); each transaction"
              + " checks it",
          transactionManager.getClass().getSimpleName(),
          unreachable.toString());
      return;
    }
    if (!bound) {
      throw new IllegalStateException(
          transactionManager.getClass().getName()
              + " binds no connection of the application's DataSource to its transactions, so the"
              + " inbox's claims would commit apart from the application's writes: a"
              + " JpaTransactionManager needs a JpaDialect that exposes the JDBC connection"
              + " (HibernateJpaDialect, as Boot configures) and the DataSource of its"
              + " EntityManagerFactory; other transaction managers must manage that DataSource"
              + " (docs/jpa.md)");
    }
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws Exception {
    try {
      return template.execute(status -> runWithBoundConnection(work));
    } catch (CheckedFailure carrier) {
      throw carrier.failure;
    } catch (TransactionSystemException rollbackFailed) {
      throw whatFailedFirst(rollbackFailed);
    }
  }

  /**
   * When the rollback after a failure fails too, Spring throws the rollback's exception and keeps
   * the work's own failure aside as the "application exception". The work's failure is what tells a
   * lost database session (retry later) from a failing record (dead letter): a session the server
   * ended fails the statement with a connection SQLState, while the pool's closed connection then
   * fails the rollback with no SQLState at all.
   */
  private static Exception whatFailedFirst(TransactionSystemException rollbackFailed) {
    Throwable first = rollbackFailed.getApplicationException();
    if (first == null) {
      return rollbackFailed;
    }
    Exception failure =
        first instanceof CheckedFailure carrier
            ? carrier.failure
            : first instanceof Exception exception ? exception : rollbackFailed;
    if (failure != rollbackFailed) {
      failure.addSuppressed(rollbackFailed);
    }
    return failure;
  }

  /**
   * Spring calls {@link TransactionSynchronization#suspend()} when an inner REQUIRES_NEW or
   * NOT_SUPPORTED unbinds this transaction from the thread; a NESTED savepoint does not suspend it.
   * A transaction manager with synchronization turned off calls no synchronization: nothing is
   * detected then.
   */
  @Override
  public void onSuspend(Runnable listener) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void suspend() {
            listener.run();
          }
        });
  }

  private <T> T runWithBoundConnection(Work<T> work) {
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      if (connection.getAutoCommit()) {
        throw new IllegalStateException(
            "the transaction manager does not manage the inbox's data source: the batch would write"
                + " on a connection outside its transaction; configure a TransactionRunner bean with"
                + " the transaction manager of that data source");
      }
      return work.run(connection);
    } catch (RuntimeException | Error unchecked) {
      throw unchecked;
    } catch (Exception checked) {
      // TransactionTemplate rolls back on unchecked exceptions only; carry the checked one out.
      throw new CheckedFailure(checked);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  /** Carries a checked failure of the work through TransactionTemplate, which rolls back on it. */
  private static final class CheckedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Exception failure;

    CheckedFailure(Exception failure) {
      super(failure);
      this.failure = failure;
    }
  }
}
