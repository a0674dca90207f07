package dev.inboxoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.schema.HeldMigrationLock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InboxOutboxSchemaIT {

  private static final int INSTANCES = 8;

  private static final String TABLES =
      """
      SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()
      """;

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
        assertThat(Rows.count(database.dataSource(), TABLES))
            .as("tables created before the migration lock was taken")
            .isZero();
        lock.release();
        int executed = 0;
        for (Future<Integer> migration : migrations) {
          executed += migration.get();
        }

        assertThat(executed).isEqualTo(5);
        assertThat(history(database))
            .containsExactly("1 SQL true", "2 SQL true", "3 SQL true", "4 SQL true", "5 SQL true");
      } finally {
        threads.shutdownNow();
      }
    }
  }

  private static List<String> history(Database database) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT version, type, success FROM "
                    + InboxOutboxSchema.HISTORY_TABLE
                    + " ORDER BY installed_rank")) {
      List<String> history = new ArrayList<>();
      while (rows.next()) {
        history.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getBoolean(3));
      }
      return history;
    }
  }
}
