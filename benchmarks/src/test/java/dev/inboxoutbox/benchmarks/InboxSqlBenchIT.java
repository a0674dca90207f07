package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class InboxSqlBenchIT {

  /**
   * The least claim is the floor of the inbox's claim at the same size: measured on an empty table
   * beside a pre-filled inbox, it hid what a large unique index costs every claim.
   */
  @Test
  void aPrefilledSubjectFillsTheLeastClaimTableAsMuchAsTheInbox() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      InboxOutboxSchema.migrate(database.dataSource());
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement()) {
        statement.execute(InboxSqlBench.CREATE_LEAST_CLAIM);

        InboxSqlBench.prefill(connection, 1_200);

        assertThat(count(statement, "SELECT count(*) FROM inbox")).isEqualTo(1_200);
        assertThat(count(statement, "SELECT count(*) FROM bench_least_claim")).isEqualTo(1_200);
        assertThat(count(statement, "SELECT count(DISTINCT key_hash) FROM bench_least_claim"))
            .as("random 16-byte digests, as scattered as the inbox's")
            .isEqualTo(1_200);
        assertThat(
                count(
                    statement,
                    "SELECT count(*) FROM bench_least_claim WHERE octet_length(key_hash) = 16"))
            .isEqualTo(1_200);
      }
    }
  }

  private static long count(Statement statement, String sql) throws SQLException {
    try (ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }
}
