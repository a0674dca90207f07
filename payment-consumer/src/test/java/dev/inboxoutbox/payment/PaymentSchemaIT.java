package dev.inboxoutbox.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.schema.SimultaneousMigration;
import org.junit.jupiter.api.RepeatedTest;

class PaymentSchemaIT {

  /**
   * Instances of the service deployed together onto a new database (with the framework's own
   * migration switched off, or run elsewhere) migrate the payment tables at once, through Spring
   * Boot's Flyway with the service's spring.flyway settings. Without the starter's locked migration
   * strategy, rounds failed with "Unable to baseline schema history table ... as it already exists,
   * and is empty"; hence 20 rounds, each on a database of its own.
   */
  @RepeatedTest(20)
  void instancesMigratingANewDatabaseAtOnceAllStartAndApplyEachMigrationOnce() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      SimultaneousMigration.startTogether(8, database);

      assertThat(SimultaneousMigration.history(database, "payment_schema_history"))
          .containsExactly("1 SQL true", "2 SQL true");
    }
  }
}
