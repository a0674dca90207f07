package dev.inboxoutbox.schema;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Creates or upgrades the inbox and outbox tables. Idempotent: safe to call on every start-up, from
 * any number of instances at once, also on a new database (see {@link #migrate(Flyway)}).
 *
 * <p>Applications that run their own Flyway can instead add {@link #LOCATION} to their locations.
 */
public final class InboxOutboxSchema {

  /** Classpath location of the migrations. */
  public static final String LOCATION = "classpath:db/inbox-outbox/migration";

  /** Flyway history table, separate from the application's {@code flyway_schema_history}. */
  public static final String HISTORY_TABLE = "iox_schema_history";

  private InboxOutboxSchema() {}

  /**
   * Applies pending migrations and returns how many ran. Works on a schema that already holds the
   * application's own tables.
   */
  public static int migrate(DataSource dataSource) {
    Flyway flyway =
        Flyway.configure()
            .dataSource(dataSource)
            .locations(LOCATION)
            .table(HISTORY_TABLE)
            // The application's tables may already be there; start our history at version 0.
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load();
    return migrate(flyway).migrationsExecuted;
  }

  /**
   * Applies {@code flyway}'s pending migrations while no other caller migrates its database: the
   * application's own Flyway, made safe for instances starting together on a new database by a
   * PostgreSQL advisory lock held around Flyway's own decisions. With Spring Boot, a {@code
   * FlywayMigrationStrategy} bean {@code InboxOutboxSchema::migrate} does that.
   */
  public static MigrateResult migrate(Flyway flyway) {
    return MigrationLock.migrate(flyway);
  }
}
