package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The optional path: runs only where a Docker engine answers, skipped cleanly elsewhere. */
@Testcontainers(disabledWithoutDocker = true)
class ContainerPostgresServerIT {

  @Test
  void containerPostgresRunsWithLogicalDecoding() throws Exception {
    try (ContainerPostgresServer server = ContainerPostgresServer.start();
        Database database = server.createDatabase();
        Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW wal_level")) {
      rows.next();
      assertThat(rows.getString(1)).isEqualTo("logical");
    }
  }
}
