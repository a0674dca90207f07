package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the relay's integration tests share: a freshly migrated database and topics of their own for
 * each test, relays that are closed after it, and the steps the tests repeat.
 */
abstract class RelayOnAFreshDatabase {

  static final Duration PATIENCE = Duration.ofSeconds(60);

  /**
   * Margin for how long a change can wait before the relay sees it: Debezium's default
   * poll.interval.ms, well above the relay's own default, so slow machines do not fail the bounds.
   */
  static final Duration ENGINE_POLL = Duration.ofMillis(500);

  Database database;
  String topicPrefix;
  final List<AutoCloseable> cleanup = new ArrayList<>();

  @BeforeEach
  void freshDatabase() {
    database = MigratedDatabase.create();
    topicPrefix = "t" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
    database.close();
  }

  static long walInsertPosition(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_current_wal_insert_lsn() - '0/0'")) {
      row.next();
      return row.getLong(1);
    }
  }

  private int lockRequestsWaiting() {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    + " WHERE c.relname = 'outbox' AND l.mode = 'ShareLock' AND NOT l.granted")) {
      row.next();
      return row.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Commits {@code writing} with a lock on the outbox queued behind it: granted the moment the
   * transaction commits, before the relay can stamp, so the relay publishes {@code event} and then
   * waits on its UPDATE until {@code stamping} ends. Returns once the event is on its topic.
   */
  void commitWithTheStampHeldBack(Connection writing, Connection stamping, OutboxEvent event)
      throws Exception {
    stamping.setAutoCommit(false);
    ExecutorService locker = Executors.newSingleThreadExecutor();
    try {
      Future<?> locked =
          locker.submit(
              () -> {
                try (Statement statement = stamping.createStatement()) {
                  statement.execute("LOCK TABLE outbox IN SHARE MODE");
                }
                return null;
              });
      await("the stamping lock queued").atMost(PATIENCE).until(() -> lockRequestsWaiting() == 1);
      writing.commit();
      locked.get(30, TimeUnit.SECONDS);
    } finally {
      locker.shutdownNow();
    }
    awaitOnTopic(event);
  }

  RelaySettings.Builder settings() {
    return settings(database, topicPrefix);
  }

  /** Fast test timings, topics named after {@code topicPrefix}, the shared Kafka. */
  static RelaySettings.Builder settings(Database database, String topicPrefix) {
    return RelaySettings.builder()
        .jdbcUrl(database.jdbcUrl())
        .user(database.username())
        .password(database.password())
        .kafkaBootstrapServers(DevStack.shared().kafka().bootstrapServers())
        .topicReplacement(topicPrefix + ".${routedByValue}")
        .offsetFlushInterval(Duration.ofMillis(300))
        .standbyPollInterval(Duration.ofMillis(200))
        .leadershipCheckInterval(Duration.ofMillis(500))
        .restartBackoff(Duration.ofMillis(200), Duration.ofSeconds(2));
  }

  OutboxRelay relay(RelaySettings settings) {
    return relay(settings, RelayListener.NONE);
  }

  OutboxRelay relay(RelaySettings settings, RelayListener listener) {
    OutboxRelay relay = OutboxRelay.builder(settings).listener(listener).build();
    cleanup.add(relay);
    return relay;
  }

  OutboxRelay started(OutboxRelay relay) throws Exception {
    relay.start();
    await("relay running").atMost(PATIENCE).until(() -> relay.state() == RelayState.RUNNING);
    awaitSlot();
    return relay;
  }

  /** Only rows inserted after the slot exists are events (snapshot.mode=no_data). */
  void awaitSlot() throws Exception {
    await("replication slot active")
        .atMost(PATIENCE)
        .until(
            () ->
                Rows.count(
                        database.dataSource(),
                        "SELECT count(*) FROM pg_replication_slots"
                            + " WHERE database = current_database() AND active")
                    == 1);
  }

  void terminateSessionsOf(OutboxRelay relay) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
              + " WHERE datname = current_database() AND application_name = '"
              + relay.instanceName()
              + "'");
      statement.execute(
          "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
              + " WHERE database = current_database() AND active");
    }
  }

  /** Waits for the event on its topic ("order"); a topic reader of its own reads from the start. */
  void awaitOnTopic(OutboxEvent event) {
    try (TopicReader reader = new TopicReader(topic("order"))) {
      reader.readUntil(seen -> distinctIds(seen).contains(event.id().toString()), PATIENCE);
    }
  }

  String topic(String aggregateType) {
    return topicPrefix + "." + aggregateType;
  }

  static Set<String> distinctIds(List<ConsumerRecord<String, byte[]>> records) {
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(header(r, "id")));
    return ids;
  }

  interface Work {
    void run(Connection connection) throws SQLException;
  }

  void inTransaction(Work work) throws SQLException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      work.run(connection);
      connection.commit();
    }
  }
}
