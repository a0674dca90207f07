package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.ReplicatedPostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class FailoverReadinessIT {

  private static final String SLOT = "iox_readiness";

  @Test
  void aServerThatStreamsToNoStandbyHasNothingToLoseInAFailover() throws SQLException {
    try (Database database = DevStack.shared().postgres().createDatabase();
        Connection connection = database.connect()) {
      FailoverReadiness.Assessment assessment = new FailoverReadiness(SLOT).assess(connection);
      assertThat(assessment.risks()).isEmpty();
      assertThat(assessment.logStandbySnapshots()).as("no standby to keep current").isFalse();
    }
  }

  @Test
  void theRelaysOwnReaderIsNoStandby() throws Exception {
    try (Database database = MigratedDatabase.create();
        Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      RelaySettings settings =
          RelayOnAFreshDatabase.settings(database, "r" + UUID.randomUUID()).build();
      try (OutboxRelay relay = OutboxRelay.builder(settings).build().start()) {
        await("the relay's reader streaming")
            .atMost(Duration.ofSeconds(90))
            .until(
                () -> {
                  try (ResultSet walsenders =
                      statement.executeQuery("SELECT count(*) FROM pg_stat_replication")) {
                    walsenders.next();
                    return walsenders.getInt(1) > 0;
                  }
                });

        FailoverReadiness.Assessment assessment =
            new FailoverReadiness(settings.slotName()).assess(connection);

        assertThat(assessment.risks()).as("a single server has no standby").isEmpty();
        assertThat(assessment.logStandbySnapshots()).isFalse();
      }
    }
  }

  @Test
  void aPlainSlotAndUnguardedLogicalChangesAreNamedOnAPrimaryWithAStandby() throws SQLException {
    try (ReplicatedPostgresServer pair =
            ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
        Database database = pair.createDatabase();
        Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      FailoverReadiness readiness = new FailoverReadiness(SLOT);
      FailoverReadiness.Assessment own = readiness.assess(connection);
      assertThat(own.risks()).as("the pair's own set-up").isEmpty();
      assertThat(own.logStandbySnapshots()).as("a failover slot's copies kept current").isTrue();

      statement.execute("SELECT pg_create_logical_replication_slot('" + SLOT + "', 'pgoutput')");
      assertThat(readiness.assess(connection).risks())
          .singleElement(InstanceOfAssertFactories.STRING)
          .contains("slot " + SLOT + " is not a failover slot");

      statement.execute("ALTER SYSTEM SET synchronized_standby_slots = ''");
      statement.execute("SELECT pg_reload_conf()");
      // The postmaster rereads the configuration after pg_reload_conf returns; new sessions then
      // see it.
      await("sessions see the reloaded setting")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                try (Connection fresh = database.connect()) {
                  assertThat(readiness.assess(fresh).risks())
                      .hasSize(2)
                      .anySatisfy(
                          risk -> assertThat(risk).contains("synchronized_standby_slots is empty"));
                }
              });
      statement.execute("SELECT pg_drop_replication_slot('" + SLOT + "')");
    }
  }

  @Test
  void aRelayRoleThatMayNotLogStandbySnapshotsIsNamedWithTheGrant() throws SQLException {
    try (ReplicatedPostgresServer pair =
            ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
        Database database = pair.createDatabase();
        Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE ROLE iox_relay_without_grant");
      statement.execute("SET ROLE iox_relay_without_grant");

      FailoverReadiness.Assessment assessment = new FailoverReadiness(SLOT).assess(connection);

      assertThat(assessment.logStandbySnapshots()).isFalse();
      assertThat(assessment.risks())
          .singleElement(InstanceOfAssertFactories.STRING)
          .contains("GRANT EXECUTE ON FUNCTION pg_log_standby_snapshot()");
    }
  }

  @Test
  void aRelayRoleThatMayNotCreateTemporaryTablesIsNamedWithTheGrant() throws SQLException {
    try (ReplicatedPostgresServer pair =
            ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
        Database database = pair.createDatabase();
        Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE ROLE iox_relay_without_temp");
      statement.execute(
          "GRANT EXECUTE ON FUNCTION pg_log_standby_snapshot() TO iox_relay_without_temp");
      statement.execute("REVOKE TEMPORARY ON DATABASE " + database.name() + " FROM PUBLIC");
      statement.execute("SET ROLE iox_relay_without_temp");

      FailoverReadiness.Assessment assessment = new FailoverReadiness(SLOT).assess(connection);

      assertThat(assessment.logStandbySnapshots()).isTrue();
      assertThat(assessment.mayRefreshCatalogSnapshot()).isFalse();
      assertThat(assessment.risks())
          .singleElement(InstanceOfAssertFactories.STRING)
          .contains("GRANT TEMPORARY ON DATABASE " + database.name());
    }
  }
}
