package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.ReplicatedPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class FailoverDurabilityHealthIndicatorIT {

  @Test
  void aDatabaseWithoutAStandbyDoesNotKeepCommitsThroughAFailover() {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      Health health = new FailoverDurabilityHealthIndicator(database.dataSource()).health(true);

      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails())
          .containsEntry("commitsSurviveFailover", false)
          .containsEntry("streamingStandbys", 0L)
          .containsEntry("synchronousStandbys", 0L);
    }
  }

  /**
   * The relay's own reader (a logical walsender, such as Debezium's) is listed in {@code
   * pg_stat_replication} beside the standbys: it is no copy of the database a failover could
   * promote.
   */
  @Test
  void aLogicalReplicationReaderIsNoStandby() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      String slot = "reader_" + database.name().replaceAll("\\W", "_").toLowerCase();
      try (Connection admin = database.connect();
          Statement sql = admin.createStatement()) {
        sql.execute("CREATE PUBLICATION everything FOR ALL TABLES");
        sql.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        try (Connection replication = database.connectForReplication();
            PGReplicationStream stream =
                replication
                    .unwrap(PGConnection.class)
                    .getReplicationAPI()
                    .replicationStream()
                    .logical()
                    .withSlotName(slot)
                    .withSlotOption("proto_version", 1)
                    .withSlotOption("publication_names", "everything")
                    .start()) {
          await("the reader's walsender listed")
              .atMost(Duration.ofSeconds(30))
              .until(() -> activeSlot(sql, slot));

          Health health = new FailoverDurabilityHealthIndicator(database.dataSource()).health(true);

          assertThat(health.getDetails())
              .containsEntry("streamingStandbys", 0L)
              .containsEntry("commitsSurviveFailover", false);
        }
        await("the slot released")
            .atMost(Duration.ofSeconds(30))
            .until(() -> !activeSlot(sql, slot));
        sql.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }

  /** A logical replication connection that has not started streaming yet reads no slot. */
  @Test
  void aLogicalReplicationConnectionBeforeItsStreamIsNoStandby() throws Exception {
    try (Database database = DevStack.shared().postgres().createDatabase();
        Connection admin = database.connect();
        Statement sql = admin.createStatement();
        Connection replication = database.connectForReplication()) {
      await("the connection's walsender listed")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                try (ResultSet row = sql.executeQuery("SELECT count(*) FROM pg_stat_replication")) {
                  row.next();
                  return row.getLong(1) > 0;
                }
              });

      Health health = new FailoverDurabilityHealthIndicator(database.dataSource()).health(true);

      assertThat(health.getDetails())
          .containsEntry("streamingStandbys", 0L)
          .containsEntry("commitsSurviveFailover", false);
    }
  }

  private static boolean activeSlot(Statement sql, String slot) throws SQLException {
    try (ResultSet row =
        sql.executeQuery(
            "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                + slot
                + "'")) {
      row.next();
      return row.getLong(1) > 0;
    }
  }

  @Test
  void commitsSurviveOnlyWhenASynchronousStandbyConfirmsThemBeforeTheyReturn() throws SQLException {
    try (ReplicatedPostgresServer pair =
            ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
        Database database = pair.createDatabase()) {
      FailoverDurabilityHealthIndicator indicator =
          new FailoverDurabilityHealthIndicator(database.dataSource());
      assertThat(indicator.health(true).getDetails())
          .as("an asynchronous standby")
          .containsEntry("commitsSurviveFailover", false)
          .containsEntry("streamingStandbys", 1L);

      pair.synchronousStandby(true);
      assertThat(indicator.health(true).getDetails())
          .as("a synchronous standby, but commits that return before the WAL is flushed")
          .containsEntry("synchronousStandbys", 1L)
          .containsEntry("synchronousCommit", "off")
          .containsEntry("commitsSurviveFailover", false);

      database.commitsSurviveServerCrashes(); // synchronous_commit = on for the database
      assertThat(indicator.health(true).getDetails())
          .containsEntry("synchronousCommit", "on")
          .containsEntry("commitsSurviveFailover", true);
    }
  }
}
