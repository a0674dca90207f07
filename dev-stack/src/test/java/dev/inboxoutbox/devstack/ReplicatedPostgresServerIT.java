package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A primary and a streaming standby of embedded PostgreSQL 17 behind one address: failovers in both
 * directions, a crashed primary, and the commits an asynchronous standby lacks. {@link
 * FailoverSlotSyncIT} carries a failover slot over, on a pair of its own.
 */
class ReplicatedPostgresServerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static ReplicatedPostgresServer pair;

  @BeforeAll
  static void startPair() {
    pair = ReplicatedPostgresServer.start(DevStackSettings.fromEnvironment());
  }

  @AfterAll
  static void stopPair() {
    pair.close();
  }

  @Test
  void commitsAcknowledgedWithASynchronousStandbySurviveFailoversBothWays() throws SQLException {
    pair.synchronousStandby(true);
    try (Database database = pair.createDatabase()) {
      execute(database, "CREATE TABLE effect (id int PRIMARY KEY)");
      execute(database, "INSERT INTO effect VALUES (1), (2)");

      pair.failover();
      await("the promoted standby serves the address")
          .atMost(PATIENCE)
          .ignoreExceptions()
          .until(() -> count(database, "SELECT count(*) FROM effect") == 2);
      execute(database, "INSERT INTO effect VALUES (3)");

      pair.failover(); // back to the first node, rebuilt as a standby in between
      await("the rebuilt node, promoted again, has every commit")
          .atMost(PATIENCE)
          .ignoreExceptions()
          .until(() -> count(database, "SELECT count(*) FROM effect") == 3);
    } finally {
      pair.synchronousStandby(false);
    }
  }

  @Test
  void aCrashedPrimaryStartsAgainOnItsDataAndItsStandbyFollowsItAgain() throws SQLException {
    try (Database database = pair.createDatabase()) {
      execute(database, "CREATE TABLE effect (id int PRIMARY KEY)");
      execute(database, "INSERT INTO effect VALUES (1)");
      PostgresServer.Processes primary = pair.processes().orElseThrow();

      primary.kill();
      primary.start();

      execute(database, "INSERT INTO effect VALUES (2)");
      awaitReplayed(pair, database);
      assertThat(count(database, "SELECT count(*) FROM effect")).isEqualTo(2);
    }
  }

  @Test
  void anAsynchronousStandbyHeldBackLosesTheCommitsItNeverReceived() throws SQLException {
    try (Database database = pair.createDatabase()) {
      execute(database, "CREATE TABLE effect (id int PRIMARY KEY)");
      execute(database, "INSERT INTO effect VALUES (1)");
      awaitReplayed(pair, database);

      pair.holdReplication(true);
      execute(database, "INSERT INTO effect VALUES (2)"); // acknowledged by the primary alone
      pair.failover();

      await("the promoted standby serves the address")
          .atMost(PATIENCE)
          .ignoreExceptions()
          .until(() -> count(database, "SELECT count(*) FROM effect WHERE id = 1") == 1);
      assertThat(count(database, "SELECT count(*) FROM effect WHERE id = 2"))
          .as("a commit the primary acknowledged and the standby never received")
          .isZero();
    }
  }

  static void awaitReplayed(ReplicatedPostgresServer pair, Database database) throws SQLException {
    long written;
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_current_wal_lsn() - '0/0'")) {
      row.next();
      written = row.getLong(1);
    }
    await("the standby replayed the WAL written so far")
        .atMost(PATIENCE)
        .until(() -> pair.standbyReplayed() >= written);
  }

  static void execute(Database database, String sql) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // Commits wait for the WAL flush (and for a synchronous standby): the dev stack's default,
      // synchronous_commit=off, acknowledges before either.
      statement.execute("SET synchronous_commit = on");
      statement.execute(sql);
    }
  }

  static long count(Database database, String sql) throws SQLException {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet row = statement.executeQuery()) {
      row.next();
      return row.getLong(1);
    }
  }
}
