package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.schema.SimultaneousMigration;
import org.junit.jupiter.api.Test;

class OrdersSchemaIT {

  /**
   * Instances of the service deployed together onto a new database (with the framework's own
   * migration switched off, or run elsewhere) migrate the order tables through Spring Boot's Flyway
   * with the service's spring.flyway settings. Each must queue on the starter's migration lock
   * before Flyway looks at the database: without it, one round in ten of eight instances failed
   * with "Unable to baseline schema history table ... as it already exists, and is empty".
   */
  @Test
  void instancesMigratingANewDatabaseAtOnceAllStartAndApplyEachMigrationOnce() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      SimultaneousMigration.startTogether(4, database);

      assertThat(SimultaneousMigration.history(database, "orders_schema_history"))
          .containsExactly("1 SQL true", "2 SQL true");
    }
  }
}
