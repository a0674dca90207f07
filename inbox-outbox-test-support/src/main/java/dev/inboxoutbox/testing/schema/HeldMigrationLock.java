package dev.inboxoutbox.testing.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.testing.jdbc.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

/**
 * The framework's schema migration lock (dev.inboxoutbox.schema.MigrationLock), held by a test as
 * another instance would hold it while migrating: instances that start meanwhile must queue on it
 * before Flyway looks at the schema. Which instances queue is then a fact read from pg_locks, not a
 * race that a test must repeat until it loses.
 */
public final class HeldMigrationLock implements AutoCloseable {

  /** The lock's two keys: "iox" in ASCII, then schema migration. */
  private static final int NAMESPACE = 0x696f78;

  private static final int SCHEMA_MIGRATION = 1;

  private static final String WAITERS =
      """
      SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE d.datname = current_database() AND l.locktype = 'advisory'
        AND l.classid = ? AND l.objid = ? AND NOT l.granted
      """;

  private static final String TABLES =
      """
      SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()
      """;

  private final Database database;
  private final Connection holder;
  private boolean held;

  private HeldMigrationLock(Database database, Connection holder) {
    this.database = database;
    this.holder = holder;
  }

  /** Takes the lock on {@code database} in a session of its own. */
  public static HeldMigrationLock take(Database database) throws SQLException {
    Connection holder = database.connect();
    HeldMigrationLock lock = new HeldMigrationLock(database, holder);
    lock.execute("SELECT pg_advisory_lock(?, ?)");
    lock.held = true;
    return lock;
  }

  private long waiters() {
    return Rows.count(database.dataSource(), WAITERS, NAMESPACE, SCHEMA_MIGRATION);
  }

  /**
   * Waits until each of {@code instances} waits for the lock, then checks that the database (new,
   * as every caller's is) still holds no table: none of them touched it before queuing. Fails at
   * once when one of them ends meanwhile (it migrated without the lock, or failed: its exception is
   * the cause), and after a minute.
   */
  public void awaitQueued(List<? extends Future<?>> instances) {
    await("%d instances waiting for the schema migration lock".formatted(instances.size()))
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .failFast(
            "an instance ended while the migration lock was held",
            () -> {
              for (Future<?> instance : instances) {
                if (instance.isDone()) {
                  instance.get(); // throws the instance's own failure, if it failed
                  throw new AssertionError("it migrated without waiting for the lock");
                }
              }
            })
        .until(() -> waiters() == instances.size());
    assertThat(Rows.count(database.dataSource(), TABLES))
        .as("tables created before the migration lock was taken")
        .isZero();
  }

  /** Lets the waiting sessions have the lock, one after another. */
  public void release() throws SQLException {
    if (held) {
      execute("SELECT pg_advisory_unlock(?, ?)");
      held = false;
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      release();
    } finally {
      holder.close();
    }
  }

  private void execute(String sql) throws SQLException {
    try (PreparedStatement statement = holder.prepareStatement(sql)) {
      statement.setInt(1, NAMESPACE);
      statement.setInt(2, SCHEMA_MIGRATION);
      statement.execute();
    }
  }
}
