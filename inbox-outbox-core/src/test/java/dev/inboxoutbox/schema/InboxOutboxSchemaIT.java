package dev.inboxoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.schema.HeldMigrationLock;
import dev.inboxoutbox.testing.schema.SimultaneousMigration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InboxOutboxSchemaIT {

  private static final int INSTANCES = 8;

  /**
   * Replicas deployed together onto a new database all migrate it. Flyway decides whether to
   * baseline before it takes its lock: one replica saw no history table, then a schema made
   * non-empty by another replica's brand-new history table, and failed to baseline it ("as it
   * already exists, and is empty"), in about one round of eight instances in five. Each replica
   * must therefore queue on the schema migration lock before Flyway looks at the database; held
   * here as a replica migrating would hold it, the lock shows that every one of them does.
   */
  @Test
  void instancesMigratingANewDatabaseAtOnceAllSucceedAndApplyEachMigrationOnce() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase();
        HeldMigrationLock lock = HeldMigrationLock.take(database)) {
      ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
      try {
        List<Future<Integer>> migrations =
            IntStream.range(0, INSTANCES)
                .mapToObj(
                    i -> threads.submit(() -> InboxOutboxSchema.migrate(database.dataSource())))
                .toList();
        lock.awaitQueued(migrations);
        lock.release();
        int executed = 0;
        for (Future<Integer> migration : migrations) {
          executed += migration.get();
        }

        assertThat(executed).isEqualTo(5);
        assertThat(SimultaneousMigration.history(database, InboxOutboxSchema.HISTORY_TABLE))
            .containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true");
      } finally {
        threads.shutdownNow();
      }
    }
  }
}
