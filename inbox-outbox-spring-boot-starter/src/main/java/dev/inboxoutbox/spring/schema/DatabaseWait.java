package dev.inboxoutbox.spring.schema;

import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a start-up migration again while the database cannot be reached, every {@link
 * #RETRY_INTERVAL} for at most {@code inbox-outbox.schema.wait-for-database}, as Flyway's {@code
 * connect-retries} does for its first connection. An instance that starts while its database
 * restarts then serves once the database is back, instead of exiting and starting over. A failure
 * that waiting cannot cure (a wrong password, a migration that fails) fails at once.
 */
final class DatabaseWait {

  static final Duration RETRY_INTERVAL = Duration.ofMillis(500);

  private static final Logger log = LoggerFactory.getLogger(DatabaseWait.class);

  private final Duration patience;

  DatabaseWait(Duration patience) {
    this.patience = patience;
  }

  void run(String what, Runnable migration) {
    long deadline = System.nanoTime() + patience.toNanos();
    boolean waited = false;
    while (true) {
      try {
        migration.run();
        if (waited) {
          log.info("the database is reachable again: {} is done", what);
        }
        return;
      } catch (RuntimeException e) {
        if (!unreachable(e) || System.nanoTime() - deadline >= 0) {
          throw e;
        }
        if (!waited) {
          log.warn(
              "the database cannot be reached ({}); trying {} again for up to {}"
                  + " (inbox-outbox.schema.wait-for-database)",
              e.getMessage(),
              what,
              patience);
          waited = true;
        }
        try {
          Thread.sleep(RETRY_INTERVAL.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * Whether {@code failure} says the database cannot be reached now: a connection exception (SQL
   * state class 08) or a server shutting down or starting up (57P01 to 57P03).
   */
  static boolean unreachable(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P0")) {
          return true;
        }
      }
    }
    return false;
  }
}
