package dev.inboxoutbox.orders;

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

class OrdersSchemaIT {

  private static final int INSTANCES = 8;

  /**
   * Instances of the service deployed together onto a new database (with the framework's own
   * migration switched off, or run elsewhere) migrate the order tables at once. Without a lock
   * taken before Flyway looks for its history table, one round in five to ten failed with "Unable
   * to baseline schema history table ... as it already exists, and is empty"; hence 20 rounds, each
   * on a database of its own.
   */
  @RepeatedTest(20)
  void instancesMigratingANewDatabaseAtOnceAllSucceedAndApplyEachMigrationOnce()
      throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      CyclicBarrier start = new CyclicBarrier(INSTANCES);
      ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
      try {
        List<Future<OrderConsumerApplication.OrdersSchema>> migrations =
            IntStream.range(0, INSTANCES)
                .mapToObj(
                    i ->
                        threads.submit(
                            () -> {
                              start.await();
                              return new OrderConsumerApplication()
                                  .ordersSchema(database.dataSource());
                            }))
                .toList();
        for (Future<OrderConsumerApplication.OrdersSchema> migration : migrations) {
          assertThat(migration.get()).isNotNull();
        }

        assertThat(history(database)).containsExactly("1 SQL true");
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
                    + "orders_schema_history"
                    + " ORDER BY installed_rank")) {
      List<String> history = new ArrayList<>();
      while (rows.next()) {
        history.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getBoolean(3));
      }
      return history;
    }
  }
}
