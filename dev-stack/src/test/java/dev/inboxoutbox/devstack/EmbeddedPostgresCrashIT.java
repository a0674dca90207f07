package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Its own stack: killing the shared one would break every other test class in the JVM. */
class EmbeddedPostgresCrashIT {

  @Test
  void aKilledServerStartsAgainOnItsDataWithEveryCommittedRow() throws SQLException {
    DevStackSettings settings = DevStackSettings.fromEnvironment();
    try (PostgresServer postgres = EmbeddedPostgresServer.start(settings);
        Database database = postgres.createDatabase()) {
      PostgresServer.Processes processes = postgres.processes().orElseThrow();
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement()) {
        // A crash loses commits that were only in PostgreSQL's memory unless commits wait for
        // the WAL write: what a chaos run with database crashes must set.
        statement.execute("SET synchronous_commit = on");
        statement.execute("CREATE TABLE survivor (id int)");
        statement.execute("INSERT INTO survivor VALUES (1), (2)");
      }

      processes.kill();

      assertThatThrownBy(database::connect).isInstanceOf(SQLException.class);
      processes.start();
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT count(*) FROM survivor")) {
        rows.next();
        assertThat(rows.getLong(1)).isEqualTo(2);
      }
    }
  }

  @Test
  void aServerSomebodyElseRunsOffersNoProcesses() {
    assertThat(new ExternalPostgresServer("jdbc:postgresql://localhost:1/x", "u", "").processes())
        .isEmpty();
  }
}
