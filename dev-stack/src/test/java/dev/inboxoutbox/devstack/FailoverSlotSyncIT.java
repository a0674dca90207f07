package dev.inboxoutbox.devstack;

import static dev.inboxoutbox.devstack.ReplicatedPostgresServerIT.awaitReplayed;
import static dev.inboxoutbox.devstack.ReplicatedPostgresServerIT.count;
import static dev.inboxoutbox.devstack.ReplicatedPostgresServerIT.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A failover slot on a primary with a streaming standby: the standby's slot sync worker, woken
 * instead of after its naps, copies the slot, and the copy decodes on after the promotion. A pair
 * of its own, so that this class and {@link ReplicatedPostgresServerIT} run beside each other.
 */
class FailoverSlotSyncIT {

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
  void aFailoverSlotIsSynchronizedToTheStandbyAndDecodesOnAfterThePromotion() throws SQLException {
    try (Database database = pair.createDatabase()) {
      execute(database, "CREATE TABLE outbox (id int PRIMARY KEY)");
      execute(database, "CREATE PUBLICATION iox_outbox FOR TABLE outbox");
      execute(
          database,
          "SELECT pg_create_logical_replication_slot('relay', 'pgoutput', false, false, true)");
      insertReturningTransaction(database, 1);
      // The standby's copy becomes one that survives promotion once the primary's slot moved past
      // what the standby can keep (its catalog xmin included): a reader that goes on reading and
      // confirming moves it, at the snapshots of running transactions PostgreSQL logs every 15 s
      // unless asked for one. The relay's failover watch asks for them; here the standby's sync
      // worker is woken too, rather than waited for after its naps (up to 30 s).
      await("the slot synchronized to the standby")
          .atMost(PATIENCE)
          .until(
              () -> {
                execute(database, "SELECT count(*) FROM " + changes("get"));
                execute(database, "SELECT pg_log_standby_snapshot()");
                pair.wakeSlotSync();
                return pair.standbySlotSynced("relay");
              });
      String beforeFailover = insertReturningTransaction(database, 2);
      awaitReplayed(pair, database); // an asynchronous standby: the commit must reach it first

      pair.failover();
      await("the promoted standby serves the address")
          .atMost(PATIENCE)
          .ignoreExceptions()
          .until(() -> count(database, "SELECT count(*) FROM outbox") == 2);
      String afterFailover = insertReturningTransaction(database, 3);

      assertThat(decodedTransactions(database))
          .as("the unread transaction from before the failover and the one after it")
          .contains(beforeFailover, afterFailover);
      execute(database, "SELECT pg_drop_replication_slot('relay')");
    }
  }

  /**
   * The standby's slot sync worker looks at the primary's slots after naps that double while no
   * slot changes (0.2 s up to 30 s); woken, it looks at once. Its looks are its queries on the
   * primary: once three came 1.5 s and then 3 s apart, the next nap lasts at least 6 s, and the
   * woken worker must look again well before that.
   */
  @Test
  void aWokenSlotSyncWorkerLooksAtThePrimarysSlotsAtOnceInsteadOfAfterItsNap() throws SQLException {
    try (Database database = pair.createDatabase()) {
      awaitWokenLook(database);
    }
  }

  private static void awaitWokenLook(Database database) throws SQLException {
    List<Instant> looks = new ArrayList<>();
    await("looks of the sync worker 1.5 s, then 3 s apart (its next nap at least 6 s)")
        .atMost(PATIENCE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              Instant look = lastSlotSyncLook(database);
              if (look != null && (looks.isEmpty() || look.isAfter(looks.get(looks.size() - 1)))) {
                looks.add(look);
              }
              int last = looks.size() - 1;
              return last >= 2
                  && gap(looks.get(last - 2), looks.get(last - 1), Duration.ofMillis(1500))
                  && gap(looks.get(last - 1), looks.get(last), Duration.ofSeconds(3));
            });
    Instant napStarted = looks.get(looks.size() - 1);

    pair.wakeSlotSync();

    await("the woken sync worker looking again")
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> lastSlotSyncLook(database).isAfter(napStarted));
  }

  private static boolean gap(Instant earlier, Instant later, Duration atLeast) {
    return Duration.between(earlier, later).compareTo(atLeast) >= 0;
  }

  /** When the standby's slot sync worker last queried the primary (its queries name the schema). */
  private static Instant lastSlotSyncLook(Database database) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT max(query_start) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                    + " AND query LIKE '%FROM pg_catalog.pg_replication_slots%'")) {
      row.next();
      java.sql.Timestamp look = row.getTimestamp(1);
      return look == null ? null : look.toInstant();
    }
  }

  private static String changes(String how) {
    return "pg_logical_slot_%s_binary_changes('relay', NULL, NULL, 'proto_version', '1',"
            .formatted(how)
        + " 'publication_names', 'iox_outbox')";
  }

  private static String insertReturningTransaction(Database database, int id) throws SQLException {
    try (Connection connection = database.connect();
        Statement durable = connection.createStatement();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO outbox VALUES (?) RETURNING pg_current_xact_id()::text")) {
      durable.execute("SET synchronous_commit = on");
      insert.setInt(1, id);
      try (ResultSet row = insert.executeQuery()) {
        row.next();
        return row.getString(1);
      }
    }
  }

  private static Set<String> decodedTransactions(Database database) throws SQLException {
    Set<String> transactions = new HashSet<>();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT DISTINCT xid::text FROM " + changes("peek"))) {
      while (rows.next()) {
        transactions.add(rows.getString(1));
      }
    }
    return transactions;
  }
}
