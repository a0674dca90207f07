package dev.inboxoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.RepeatedTest;

class InboxOutboxSchemaIT {

  private static final int INSTANCES = 8;

  /**
   * Replicas deployed together onto a new database all migrate it at once. Flyway decides whether
   * to baseline before it takes its lock: one replica saw no history table, then a schema made
   * non-empty by another replica's brand-new history table, and failed to baseline it ("as it
   * already exists, and is empty"), in about one round of eight instances in five; hence 20 rounds,
   * each on a database of its own.
   */
  @RepeatedTest(20)
  void instancesMigratingANewDatabaseAtOnceAllSucceedAndApplyEachMigrationOnce() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      CyclicBarrier start = new CyclicBarrier(INSTANCES);
      ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
      try {
        List<Future<Integer>> migrations =
            IntStream.range(0, INSTANCES)
                .mapToObj(
                    i ->
                        threads.submit(
                            () -> {
                              start.await();
                              return InboxOutboxSchema.migrate(database.dataSource());
                            }))
                .toList();
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
