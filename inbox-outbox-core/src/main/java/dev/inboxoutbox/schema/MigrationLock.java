package dev.inboxoutbox.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Runs a Flyway migration under a PostgreSQL advisory lock, so that any number of instances
 * starting together on one database migrate it one after another.
 *
 * <p>Flyway's own lock is not enough on a new database: Flyway decides whether to create or to
 * baseline its history table before it locks anything. An instance that found no history table,
 * then a schema made non-empty by another instance's brand-new (still empty) history table, failed
 * with "Unable to baseline schema history table ... as it already exists, and is empty". Flyway 11
 * has no setting that takes its lock earlier.
 *
 * <p>The lock is held by a session of its own, taken from Flyway's data source, for the whole of
 * {@link Flyway#migrate()}: one more connection while migrating. Instances that arrive meanwhile
 * wait, then find the schema up to date. With Spring Boot's Flyway auto-configuration, a {@code
 * FlywayMigrationStrategy} bean {@code InboxOutboxSchema::migrate} does the same.
 */
final class MigrationLock {

  /**
   * A lock on two 32-bit keys: PostgreSQL keeps those apart from the 64-bit keys Flyway locks its
   * history tables with, so this lock never waits on Flyway's own. The first key is "iox" in ASCII.
   */
  private static final int NAMESPACE = 0x696f78;

  private static final int SCHEMA_MIGRATION = 1;

  private static final String LOCK =
      """
      SELECT pg_advisory_lock(?, ?)
      """;

  private static final String UNLOCK =
      """
      SELECT pg_advisory_unlock(?, ?)
      """;

  private MigrationLock() {}

  /** Applies {@code flyway}'s pending migrations while no other caller migrates its database. */
  static MigrateResult migrate(Flyway flyway) {
    try (Connection session = flyway.getConfiguration().getDataSource().getConnection()) {
      lock(session);
      MigrateResult result;
      try {
        result = flyway.migrate();
      } catch (RuntimeException migrationFailed) {
        try {
          unlock(session);
        } catch (SQLException | SchemaMigrationException unlockFailed) {
          migrationFailed.addSuppressed(unlockFailed);
        }
        throw migrationFailed;
      }
      unlock(session);
      return result;
    } catch (SQLException e) {
      throw new SchemaMigrationException(
          "cannot take or release the schema migration lock (a PostgreSQL advisory lock)", e);
    }
  }

  /** Waits for as long as another instance migrates: its migration may take a while. */
  private static void lock(Connection session) throws SQLException {
    try (PreparedStatement statement = session.prepareStatement(LOCK)) {
      statement.setInt(1, NAMESPACE);
      statement.setInt(2, SCHEMA_MIGRATION);
      statement.execute();
    }
  }

  /**
   * A pooled session outlives close(), and a session lock with it: release it explicitly, or every
   * other instance's migration would wait for as long as the pool keeps this session.
   */
  private static void unlock(Connection session) throws SQLException {
    try (PreparedStatement statement = session.prepareStatement(UNLOCK)) {
      statement.setInt(1, NAMESPACE);
      statement.setInt(2, SCHEMA_MIGRATION);
      try (ResultSet released = statement.executeQuery()) {
        if (!released.next() || !released.getBoolean(1)) {
          throw new SchemaMigrationException(
              "the schema migration lock was no longer held when the migration ended");
        }
      }
    }
  }
}
