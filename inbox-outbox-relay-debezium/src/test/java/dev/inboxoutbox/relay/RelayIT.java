package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The embedded relay publishing a database's outbox: topics, keys, headers and order, what it
 * leaves out, a standby taking over, a least-privilege role, and how a failed run reports its
 * cause. {@link RelayRestartIT} has the relay starting again from what it stored.
 */
class RelayIT extends RelayOnAFreshDatabase {

  @Test
  void eventsReachTheirTopicsInAggregateOrderWithKeyAndHeaders() throws Exception {
    OutboxRelay relay = started(relay(settings().build()));
    Outbox outbox = Outbox.builder().build();
    Map<String, String> typeOfEvent = new HashMap<>();
    for (int sequence = 0; sequence < 20; sequence++) {
      List<OutboxEvent> events = new ArrayList<>();
      for (String order : List.of("o-1", "o-2", "o-3")) {
        events.add(
            OutboxEvent.builder("order", order, "OrderStep", "{\"seq\":" + sequence + "}")
                .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .tracestate("congo=t61rcWkgMzE")
                .correlationId("corr-" + order)
                .causationId("cause-" + sequence)
                .build());
      }
      events.add(
          OutboxEvent.of("payment", "p-1", "PaymentRequested", "{\"seq\":" + sequence + "}"));
      events.forEach(e -> typeOfEvent.put(e.id().toString(), e.type()));
      inTransaction(c -> outbox.appendAll(c, events));
    }

    List<ConsumerRecord<String, byte[]>> records;
    try (TopicReader reader = new TopicReader(topic("order"), topic("payment"))) {
      records = reader.readUntil(seen -> distinctIds(seen).size() == 80, PATIENCE);
    }

    // At least once: a producer that resends a batch it could not confirm (an idempotent producer
    // racing the topic's creation has done so) publishes copies. The order holds for first copies.
    Map<String, List<Integer>> sequencesByKey = new HashMap<>();
    Set<String> seenIds = new HashSet<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      String id = header(record, "id");
      if (!seenIds.add(id)) {
        assertThat(typeOfEvent).as("a copy of an event that was appended").containsKey(id);
        continue;
      }
      assertThat(header(record, "Idempotency-Key")).isEqualTo(id);
      record.headers().forEach(h -> assertThat(h.key()).doesNotStartWith("__debezium"));
      assertThat(header(record, "type")).isEqualTo(typeOfEvent.get(id));
      if (record.topic().equals(topic("order"))) {
        assertThat(record.key()).startsWith("o-");
        assertThat(header(record, "traceparent")).startsWith("00-4bf92f35");
        assertThat(header(record, "tracestate")).isEqualTo("congo=t61rcWkgMzE");
        assertThat(header(record, "correlation-id")).isEqualTo("corr-" + record.key());
        assertThat(header(record, "causation-id")).startsWith("cause-");
      } else {
        assertThat(record.key()).isEqualTo("p-1");
        assertThat(header(record, "traceparent")).isNull();
        assertThat(header(record, "tracestate")).isNull();
      }
      int sequence = Integer.parseInt(value(record).replaceAll("\\D", ""));
      sequencesByKey.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(sequence);
    }
    assertThat(sequencesByKey).containsOnlyKeys("o-1", "o-2", "o-3", "p-1");
    List<Integer> inOrder = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      inOrder.add(i);
    }
    sequencesByKey.values().forEach(sequences -> assertThat(sequences).isEqualTo(inOrder));
    await("every kept row stamped published")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);
    assertThat(relay.status().publishedEvents()).isEqualTo(80);
    assertThat(relay.status().lastPublished()).isPresent();
  }

  /**
   * Debezium takes a snapshot mode's implementation as the connector's own only when it is marked
   * for the configured connector class; otherwise it uses one of that name from any connector on
   * the class path and warns at every start (OutboxSnapshotModes).
   */
  @Test
  void aStartingRelayFindsItsSnapshotQueryAndLockWithoutFallingBack() throws Exception {
    ListAppender<ILoggingEvent> snapshotProviders = new ListAppender<>();
    snapshotProviders.start();
    List<Logger> loggers =
        List.of(
            (Logger) LoggerFactory.getLogger("io.debezium.snapshot.SnapshotQueryProvider"),
            (Logger) LoggerFactory.getLogger("io.debezium.snapshot.SnapshotLockProvider"));
    loggers.forEach(logger -> logger.addAppender(snapshotProviders));
    try {
      started(relay(settings().build()));
      OutboxEvent event = OutboxEvent.of("order", "o-1", "OrderPlaced", "{}");
      inTransaction(c -> Outbox.builder().build().append(c, event));
      awaitOnTopic(event);
    } finally {
      loggers.forEach(logger -> logger.detachAppender(snapshotProviders));
    }
    assertThat(snapshotProviders.list)
        .filteredOn(logged -> logged.getLevel().isGreaterOrEqual(Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
  }

  @Test
  void aRolledBackTransactionPublishesNothing() throws Exception {
    started(relay(settings().build()));
    Outbox outbox = Outbox.builder().build();
    OutboxEvent rolledBack = OutboxEvent.of("order", "o-9", "OrderPlaced", "{\"n\":1}");
    OutboxEvent committed = OutboxEvent.of("order", "o-9", "OrderPlaced", "{\"n\":2}");
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      outbox.append(connection, rolledBack);
      connection.rollback();
    }
    inTransaction(c -> outbox.append(c, committed));

    List<ConsumerRecord<String, byte[]>> records;
    try (TopicReader reader = new TopicReader(topic("order"))) {
      reader.readUntil(seen -> distinctIds(seen).contains(committed.id().toString()), PATIENCE);
      records = reader.readFor(Duration.ofSeconds(2));
    }
    assertThat(distinctIds(records)).containsExactly(committed.id().toString());
  }

  @Test
  void aStandbyTakesOverWithinSecondsWhenTheLeaderSessionDies() throws Exception {
    // A dead leader does not come back soon; the long backoff keeps it from winning the lock back.
    OutboxRelay first =
        relay(settings().restartBackoff(Duration.ofSeconds(20), Duration.ofSeconds(20)).build());
    OutboxRelay second = relay(settings().build());
    first.start();
    await("first relay leads").atMost(PATIENCE).until(() -> first.state() == RelayState.RUNNING);
    awaitSlot();
    second.start();
    await("second relay stands by")
        .atMost(PATIENCE)
        .until(() -> second.state() == RelayState.STANDBY);
    await("second relay stays in standby while the first leads")
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> second.state() == RelayState.STANDBY);

    Outbox outbox = Outbox.builder().build();
    OutboxEvent before = OutboxEvent.of("order", "o-1", "Before", "{}");
    inTransaction(c -> outbox.append(c, before));
    awaitOnTopic(before);

    // The leader's process dying ends its sessions; terminating them is the same from the
    // database's point of view.
    terminateSessionsOf(first);
    Instant died = Instant.now();
    await("standby takes over").atMost(PATIENCE).until(() -> second.state() == RelayState.RUNNING);
    Duration takeover = Duration.between(died, Instant.now());
    System.out.println("standby took over " + takeover.toMillis() + " ms after the leader died");
    assertThat(takeover).isLessThan(Duration.ofSeconds(15));

    OutboxEvent after = OutboxEvent.of("order", "o-1", "After", "{}");
    inTransaction(c -> outbox.append(c, after));
    awaitOnTopic(after);
    assertThat(first.state()).isNotEqualTo(RelayState.RUNNING);
  }

  @Test
  void aLeastPrivilegeReplicationRoleWorksWithThePublicationCreatedUpFront() throws Exception {
    String role = "iox_relay_" + UUID.randomUUID().toString().substring(0, 8);
    try (Connection admin = database.connect();
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD 'relay'");
      statement.execute("GRANT USAGE ON SCHEMA public TO " + role);
      statement.execute("GRANT SELECT, UPDATE (published_at) ON outbox TO " + role);
      statement.execute("GRANT SELECT, INSERT, DELETE ON iox_relay_offsets TO " + role);
      statement.execute("GRANT SELECT, INSERT, DELETE ON iox_relay_heartbeat TO " + role);
      try (ResultSet publication =
          statement.executeQuery(
              "SELECT count(*) FROM pg_publication WHERE pubname = 'iox_outbox'")) {
        publication.next();
        assertThat(publication.getInt(1)).as("migration created the publication").isEqualTo(1);
      }
    }
    cleanup.add(() -> dropRoleLater(role));
    RelaySettings settings =
        settings().user(role).password("relay").heartbeatInterval(Duration.ofMillis(200)).build();
    OutboxRelay relay = started(relay(settings));

    OutboxEvent event = OutboxEvent.of("order", "o-7", "OrderPlaced", "{}");
    inTransaction(c -> Outbox.builder().build().append(c, event));
    awaitOnTopic(event);
    await("row stamped by the least-privilege role")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);
    await("one heartbeat row kept for the slot")
        .atMost(PATIENCE)
        .until(() -> heartbeatsOf(settings) == 1);
  }

  @Test
  void rowsDeletedRightAfterInsertAreStillPublished() throws Exception {
    started(relay(settings().build()));
    Outbox outbox = Outbox.builder().policy(Outbox.Policy.DELETE_AFTER_INSERT).build();
    OutboxEvent event = OutboxEvent.of("order", "o-3", "OrderPlaced", "{\"x\":1}");
    inTransaction(c -> outbox.append(c, event));

    awaitOnTopic(event);
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM outbox")) {
      rows.next();
      assertThat(rows.getInt(1)).isZero();
    }
  }

  @Test
  void anEventLeavesOnlyOnceItsTransactionIsVisibleAndIsThenStamped() throws Exception {
    // A commit is flushed to the WAL, and so decodable, a moment before other sessions can see it;
    // a synchronous standby that never answers stretches that moment until the wait is cancelled.
    // A consumer given the event then would not find what it announces in the producer's tables.
    // The relay's sessions commit locally; only the writer waits for the absent standby.
    try (Connection admin = database.connect();
        Statement statement = admin.createStatement()) {
      statement.execute(
          "ALTER DATABASE \"" + database.name() + "\" SET synchronous_commit = local");
      statement.execute("ALTER SYSTEM SET synchronous_standby_names = 'iox_absent_standby'");
      statement.execute("SELECT pg_reload_conf()");
      cleanup.add(
          () -> {
            try (Connection connection = database.connect();
                Statement reset = connection.createStatement()) {
              reset.execute("ALTER SYSTEM RESET synchronous_standby_names");
              reset.execute("SELECT pg_reload_conf()");
            }
          });
    }
    OutboxRelay relay = started(relay(settings().build()));
    OutboxEvent event = OutboxEvent.of("order", "o-4", "OrderPlaced", "{}");
    ExecutorService committer = Executors.newSingleThreadExecutor();
    try (Connection writer = database.connect()) {
      writer.setAutoCommit(false);
      try (Statement statement = writer.createStatement()) {
        statement.execute("SET synchronous_commit = on");
      }
      int writerPid;
      try (Statement statement = writer.createStatement();
          ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
        row.next();
        writerPid = row.getInt(1);
      }
      Outbox.builder().build().append(writer, event);
      long beforeCommit = walInsertPosition(writer);
      Future<?> commit =
          committer.submit(
              () -> {
                writer.commit();
                return null;
              });
      await("the commit sent to the relay")
          .atMost(PATIENCE)
          .until(() -> slotSentPosition() > beforeCommit);
      try (TopicReader reader = new TopicReader(topic("order"))) {
        assertThat(distinctIds(reader.readFor(ENGINE_POLL.multipliedBy(4))))
            .as("published while other sessions cannot see its transaction")
            .doesNotContain(event.id().toString());
      }
      assertThat(commit).isNotDone();

      try (Connection admin = database.connect();
          Statement statement = admin.createStatement()) {
        statement.execute("SELECT pg_cancel_backend(" + writerPid + ")");
      }
      commit.get(30, TimeUnit.SECONDS);
    } finally {
      committer.shutdownNow();
    }
    awaitOnTopic(event);
    await("the row stamped published")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);
  }

  /** How far the slot's WAL sender has sent; -1 while nobody reads the slot. */
  private long slotSentPosition() {
    return Rows.text(
            database.dataSource(),
            "SELECT pg_wal_lsn_diff(r.sent_lsn, '0/0')::bigint FROM pg_stat_replication r"
                + " JOIN pg_replication_slots s ON s.active_pid = r.pid"
                + " WHERE s.database = current_database()")
        .map(Long::parseLong)
        .orElse(-1L);
  }

  @Test
  void aFailedRunReportsWhatFailedAndTheRootCause() throws Exception {
    OutboxRelay relay =
        started(
            relay(
                settings().restartBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()));
    Outbox outbox = Outbox.builder().build();
    OutboxEvent first = OutboxEvent.of("order", "o-1", "Stamped", "{}");
    inTransaction(c -> outbox.append(c, first));
    await("the first event stamped published")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);

    try (Connection connection = database.connect();
        PreparedStatement terminate =
            connection.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE application_name = ?"
                    + " AND (query LIKE 'UPDATE %published_at%' OR query = 'COMMIT'"
                    + " OR query LIKE 'SELECT pg_snapshot_xmax%')")) {
      terminate.setString(1, relay.instanceName());
      try (ResultSet terminated = terminate.executeQuery()) {
        terminated.next();
        assertThat(terminated.getInt(1)).as("the relay's marking session terminated").isEqualTo(1);
      }
    }
    OutboxEvent second = OutboxEvent.of("order", "o-1", "NotStamped", "{}");
    inTransaction(c -> outbox.append(c, second));

    await("the run failed").atMost(PATIENCE).until(() -> relay.state() == RelayState.FAILED);
    assertThat(relay.status().lastError())
        .hasValueSatisfying(
            error ->
                assertThat(error)
                    // The batch's first use of the session: the check that its transaction is
                    // visible, before anything is sent.
                    .containsPattern("checking that transactions \\[\\d+\\] are visible failed")
                    .contains("PSQLException")
                    .doesNotContainIgnoringCase("shutting down"));
  }

  @Test
  void aRunEndedByADatabaseCrashReportsTheEngineFailureNotItsShutdown() throws Exception {
    OutboxRelay relay =
        started(
            relay(
                settings().restartBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()));
    Outbox outbox = Outbox.builder().build();
    OutboxEvent event = OutboxEvent.of("order", "o-1", "PublishedNotStamped", "{}");
    try (Connection writing = database.connect();
        Connection stamping = database.connect()) {
      writing.setAutoCommit(false);
      outbox.append(writing, event);
      commitWithTheStampHeldBack(writing, stamping, event);
      terminateSessionsOf(relay); // every session of the relay ends, as in a server crash
      await("the run failed").atMost(PATIENCE).until(() -> relay.state() == RelayState.FAILED);
      stamping.rollback();
    }
    // Both the batch's stamp and the leader's lock session died with the server; whichever the
    // relay noticed first is the cause, never the engine's own shutdown that followed it.
    assertThat(relay.status().lastError())
        .hasValueSatisfying(
            error ->
                assertThat(error)
                    .containsAnyOf(
                        "marking 1 outbox rows published failed",
                        "lost the leadership lock session")
                    .doesNotContainIgnoringCase("shutting down"));
  }

  private int heartbeatsOf(RelaySettings settings) {
    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT count(*) FROM iox_relay_heartbeat WHERE slot_name = ?")) {
      query.setString(1, settings.slotName());
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return row.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void dropRoleLater(String role) {
    // The database owns the grants; it is dropped after this runs, so only try.
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "REVOKE ALL ON outbox, iox_relay_offsets, iox_relay_heartbeat FROM " + role);
      statement.execute("REVOKE ALL ON SCHEMA public FROM " + role);
      statement.execute("DROP ROLE " + role);
    } catch (SQLException e) {
      System.out.println("could not drop role " + role + ": " + e.getMessage());
    }
  }
}
