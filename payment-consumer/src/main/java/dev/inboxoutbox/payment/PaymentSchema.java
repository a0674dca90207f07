package dev.inboxoutbox.payment;

import dev.inboxoutbox.schema.MigrationLock;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The service's own tables ({@code db/payment/migration}), with a Flyway history of their own
 * beside the framework's {@code iox_schema_history}, so each side versions its schema alone.
 */
final class PaymentSchema {

  static final String LOCATION = "classpath:db/payment/migration";
  static final String HISTORY_TABLE = "payment_schema_history";

  private PaymentSchema() {}

  /** Applies pending migrations; safe on every start and from any number of instances at once. */
  static PaymentSchema migrate(DataSource dataSource) {
    MigrationLock.migrate(
        Flyway.configure()
            .dataSource(dataSource)
            .locations(LOCATION)
            .table(HISTORY_TABLE)
            // The framework's tables may be there first; this history starts at version 0 beside
            // them.
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load());
    return new PaymentSchema();
  }
}
