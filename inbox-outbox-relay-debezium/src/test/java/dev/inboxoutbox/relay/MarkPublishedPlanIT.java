package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Stamping a batch published must cost a primary-key lookup per event, however many rows the outbox
 * holds: a plan that scans the outbox made the relay slower the longer it ran.
 */
class MarkPublishedPlanIT {

  private static final int ROWS = 20_000;
  private static final int BATCH = 1_800;

  @Test
  void stampingABatchPublishedNeverComparesEachRowWithTheWholeBatch() throws Exception {
    try (Database database = MigratedDatabase.create();
        Connection connection = database.connect()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(
            """
            INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
            SELECT gen_random_uuid(), 'order', 'o-' || (n %% 20), 'OrderPlaced', '{}'
            FROM generate_series(1, %d) AS n"""
                .formatted(ROWS));
      }
      List<String> ids = new ArrayList<>();
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT id::text FROM outbox ORDER BY random() LIMIT " + BATCH)) {
        while (rows.next()) {
          ids.add(rows.getString(1));
        }
      }
      String plan;
      try (PreparedStatement explain =
          connection.prepareStatement(
              "EXPLAIN " + KafkaPublisher.markPublishedSql("public.outbox"))) {
        explain.setArray(1, connection.createArrayOf("text", ids.toArray()));
        StringBuilder lines = new StringBuilder();
        try (ResultSet rows = explain.executeQuery()) {
          while (rows.next()) {
            String line = rows.getString(1);
            // The ids in a filter line would bury the plan in the failure message.
            lines.append(line, 0, Math.min(line.length(), 120)).append('\n');
          }
        }
        plan = lines.toString();
      }
      assertThat(plan).doesNotContainPattern("Filter: .*= ANY");
    }
  }

  /**
   * A relay that fell behind has a backlog of unpublished rows; a plan that hashes all of them for
   * every batch makes each batch slower the further behind the relay is.
   */
  @Test
  void stampingABatchLooksEachEventUpByItsPrimaryKeyWhateverTheBacklog() throws Exception {
    try (Database database = MigratedDatabase.create();
        Connection connection = database.connect()) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(
            """
            INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
            SELECT gen_random_uuid(), 'order', 'o-' || (n %% 20), 'OrderPlaced', '{}'
            FROM generate_series(1, %d) AS n"""
                .formatted(ROWS));
        statement.execute("ANALYZE outbox");
      }
      List<String> ids = new ArrayList<>();
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT id::text FROM outbox ORDER BY created_at, id LIMIT " + BATCH)) {
        while (rows.next()) {
          ids.add(rows.getString(1));
        }
      }
      // The relay runs the statement many times on one connection: PostgreSQL may switch to a
      // generic plan, which estimates the ids' count instead of counting them.
      for (String planMode : List.of("force_custom_plan", "force_generic_plan")) {
        try (Statement statement = connection.createStatement()) {
          statement.execute("SET plan_cache_mode = " + planMode);
        }
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement explain =
            connection.prepareStatement(
                "EXPLAIN " + KafkaPublisher.markPublishedSql("public.outbox"))) {
          explain.setArray(1, connection.createArrayOf("text", ids.toArray()));
          try (ResultSet rows = explain.executeQuery()) {
            while (rows.next()) {
              plan.append(rows.getString(1)).append('\n');
            }
          }
        }
        assertThat(plan.toString())
            .as(planMode)
            .doesNotContain("Seq Scan on outbox")
            .doesNotContain("Hash")
            .contains("Index Scan using outbox_pkey")
            .contains("Tid Scan on outbox");
      }
    }
  }
}
