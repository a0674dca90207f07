package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.nio.ByteBuffer;
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
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

class RelayIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final long MEGABYTE = 1024 * 1024;
  private static final String COMMIT_OFFSET = "\"messageType\":\"COMMIT\"";

  /**
   * Longer than Debezium's 500 ms poll, so that a heartbeat falls due while the stream is quiet, at
   * the last commit, rather than at the next change, which is often the relay's own heartbeat row.
   */
  private static final Duration HEARTBEAT_AT_COMMITS = Duration.ofSeconds(1);

  /**
   * Margin for how long a change can wait before the relay sees it: Debezium's default
   * poll.interval.ms, well above the relay's own default, so slow machines do not fail the bounds.
   */
  private static final Duration ENGINE_POLL = Duration.ofMillis(500);

  private Database database;
  private String topicPrefix;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

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
  void aCrashBetweenPublishAndOffsetCommitLosesNothingAndRepeatsAreCounted() throws Exception {
    AtomicBoolean crashed = new AtomicBoolean();
    RelayListener crashOnce =
        events -> {
          if (crashed.compareAndSet(false, true)) {
            throw new IllegalStateException("injected crash after Kafka acknowledged");
          }
        };
    OutboxRelay relay = started(relay(settings().build(), crashOnce));
    Outbox outbox = Outbox.builder().build();
    Set<String> written = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      OutboxEvent event = OutboxEvent.of("order", "o-" + (i % 5), "OrderStep", "{\"i\":" + i + "}");
      written.add(event.id().toString());
      inTransaction(c -> outbox.append(c, event));
    }

    List<ConsumerRecord<String, byte[]>> records;
    try (TopicReader reader = new TopicReader(topic("order"))) {
      reader.readUntil(seen -> distinctIds(seen).containsAll(written), PATIENCE);
      // Every record is acknowledged once every row is stamped; the repeats may sit on another
      // partition than the last new id, so read on until all of them are in.
      await("all rows stamped published")
          .atMost(PATIENCE)
          .until(() -> relay.lag().unpublishedRows() == 0);
      records = reader.readFor(Duration.ofSeconds(3));
    }
    int repeats = records.size() - distinctIds(records).size();
    System.out.printf(
        "crash between publish and offset commit: %d events, %d records, %d repeats, %d restarts%n",
        written.size(), records.size(), repeats, relay.status().restarts());
    assertThat(crashed).isTrue();
    assertThat(relay.status().restarts()).isGreaterThanOrEqualTo(1);
    assertThat(repeats)
        .as("the batch acknowledged before the crash is published again")
        .isPositive();
    assertThat(distinctIds(records)).isEqualTo(written);
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
  void aRestartedRelayResumesFromItsStoredOffsetsAndReportsLagMeanwhile() throws Exception {
    OutboxRelay first = started(relay(settings().build()));
    Outbox outbox = Outbox.builder().build();
    OutboxEvent early = OutboxEvent.of("order", "o-1", "Early", "{}");
    inTransaction(c -> outbox.append(c, early));
    awaitOnTopic(early);
    first.close();
    assertThat(first.state()).isEqualTo(RelayState.STOPPED);

    List<String> written = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      OutboxEvent event = OutboxEvent.of("order", "o-2", "WhileDown", "{\"i\":" + i + "}");
      written.add(event.id().toString());
      inTransaction(c -> outbox.append(c, event));
    }
    OutboxRelay second = relay(settings().build());
    RelayLag lag = second.lag();
    assertThat(lag.unpublishedRows()).isEqualTo(3);
    assertThat(lag.oldestUnpublished()).isPresent();
    assertThat(lag.slotLagBytes()).isPresent();
    assertThat(lag.slotLagBytes().getAsLong()).isPositive();

    second.start();
    List<ConsumerRecord<String, byte[]>> records;
    try (TopicReader reader = new TopicReader(topic("order"))) {
      records = reader.readUntil(seen -> distinctIds(seen).containsAll(written), PATIENCE);
    }
    assertThat(distinctIds(records)).contains(early.id().toString());
    await("backlog drained").atMost(PATIENCE).until(() -> second.lag().unpublishedRows() == 0);
    assertThat(second.lag().oldestUnpublished()).isEmpty();
  }

  @Test
  void aTransactionPublishedButNotStampedWhenTheLeaderDiedIsPublishedAgain() throws Exception {
    // A long transaction wrote its outbox row, a shorter one committed and was stamped, then the
    // long one committed, was published, and the leader died before stamping it. Commit order is
    // not insert order, so the long transaction's row sits below the stored offset in the WAL;
    // the next engine must still publish and stamp it.
    OutboxRelay relay = started(relay(settings().build()));
    Outbox outbox = Outbox.builder().build();
    OutboxEvent early = OutboxEvent.of("order", "o-long", "WrittenFirst", "{}");
    OutboxEvent later = OutboxEvent.of("order", "o-short", "CommittedFirst", "{}");
    try (Connection longTransaction = database.connect();
        Connection stamping = database.connect()) {
      longTransaction.setAutoCommit(false);
      outbox.append(longTransaction, early);
      long afterEarly = walInsertPosition(longTransaction);
      inTransaction(c -> outbox.append(c, later));
      awaitOnTopic(later);
      await("the short transaction's row stamped")
          .atMost(PATIENCE)
          .until(() -> relay.lag().unpublishedRows() == 0);
      await("an offset past `early` stored")
          .atMost(PATIENCE)
          .until(
              () ->
                  storedOffsetIfAny()
                      .map(offset -> lsn("lsn", offset) >= afterEarly)
                      .orElse(false));

      commitWithTheStampHeldBack(longTransaction, stamping, early);
      terminateSessionsOf(relay); // the leader dies with `early` published, not stamped
      stamping.rollback();
    }
    await("`early` published again and stamped")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);
  }

  @Test
  void aLongTransactionWhoseRowFollowsTheStoredCommitInTheWalIsPublishedAfterARestart()
      throws Exception {
    // A heartbeat stores the position of the last COMMIT the relay saw: where that commit record
    // ends, which is also where the next WAL record starts. When that record is a row of a
    // transaction still open, and that transaction is the next to commit, Debezium's restart
    // search takes the row for the stored event and skips the transaction's rows up to it. A
    // chaos run (seed 633318) lost a whole payment-webhooks batch this way: the leader lagged, so
    // the long transaction committed before the leader stored the heartbeat's position; it then
    // published the batch and was killed before its offsets moved past it.
    RelaySettings settings = settings().heartbeatInterval(HEARTBEAT_AT_COMMITS).build();
    Outbox outbox = Outbox.builder().build();
    String heartbeatOffset = heartbeatOffsetOfAStoppedRelay(settings, outbox);

    OutboxEvent first = OutboxEvent.of("order", "o-long", "WrittenBeforeTheCommit", "{}");
    OutboxEvent between = OutboxEvent.of("order", "o-short", "CommittedInBetween", "{}");
    OutboxEvent last = OutboxEvent.of("order", "o-long", "WrittenRightAfterTheCommit", "{}");
    long commitEnd;
    try (Connection longTransaction = database.connect()) {
      longTransaction.setAutoCommit(false);
      outbox.append(longTransaction, first);
      try (Connection connection = database.connect()) {
        connection.setAutoCommit(false);
        outbox.append(connection, between);
        connection.commit();
        commitEnd = walInsertPosition(connection);
      }
      assertThat(walInsertPosition(longTransaction))
          .as("nothing was written to the WAL between the commit and the long transaction's row")
          .isEqualTo(commitEnd);
      outbox.append(longTransaction, last);
      longTransaction.commit();
    }
    // What the leader would have stored had its heartbeat come at that commit: the same offset,
    // every LSN in it moved by the same distance.
    storeOffsetMovedTo(heartbeatOffset, commitEnd);

    OutboxEvent afterwards = OutboxEvent.of("order", "o-next", "CommittedAfterwards", "{}");
    inTransaction(c -> outbox.append(c, afterwards));
    started(relay(settings));
    try (TopicReader reader = new TopicReader(topic("order"))) {
      List<ConsumerRecord<String, byte[]>> records =
          reader.readUntil(
              seen -> distinctIds(seen).contains(afterwards.id().toString()), PATIENCE);
      assertThat(distinctIds(records)).contains(first.id().toString(), last.id().toString());
    }
  }

  @Test
  void aRelayStartsAfterTheLeaderConfirmedTheSlotUpToAStoredCommit() throws Exception {
    // Debezium refuses to start when the slot may restart past the stored position ("no longer
    // available on the server"). A leader confirms the slot up to its stored lsn_commit; when a
    // running-transactions record follows that commit, PostgreSQL moves the slot's restart
    // position there. Had the stored position been earlier than the confirmed one, every
    // following leader would fail to start, and nothing would be published again (a ChaosIT run).
    RelaySettings settings = settings().heartbeatInterval(HEARTBEAT_AT_COMMITS).build();
    Outbox outbox = Outbox.builder().build();
    String heartbeatOffset = heartbeatOffsetOfAStoppedRelay(settings, outbox);
    await("the leader's replication connection closed")
        .atMost(PATIENCE)
        .until(() -> !slotActive(settings));

    OutboxEvent afterwards = OutboxEvent.of("order", "o-next", "CommittedAfterwards", "{}");
    String stored;
    try (SlotReader leader = new SlotReader(settings)) {
      // Confirmed past anything decoded so far, so that the slot's next restart candidate is the
      // running-transactions record written below.
      leader.confirm(leader.commitEndOf(committedTransaction()));
      long commitEnd;
      try (Connection connection = database.connect();
          Statement statement = connection.createStatement()) {
        long transaction = committedTransaction();
        long written = walInsertPosition(connection);
        statement.execute("CHECKPOINT"); // logs the running transactions right away
        commitEnd = leader.commitEndOf(transaction);
        assertThat(written)
            .as("nothing was written to the WAL between the commit and the checkpoint")
            .isEqualTo(commitEnd);
      }
      inTransaction(c -> outbox.append(c, afterwards));
      stored = storeOffsetMovedTo(heartbeatOffset, commitEnd);
      leader.readPastWalWrittenSoFar();
      leader.confirm(lsn("lsn_commit", stored));
    }
    assertThat(slotRestartPosition(settings))
        .as("where the slot restarts, against the stored position %s", stored)
        .isLessThanOrEqualTo(lsn("lsn_proc", stored));

    started(relay(settings));
    awaitOnTopic(afterwards);
  }

  /** Runs a relay until its last stored offset is a heartbeat's at a commit, then stops it. */
  private String heartbeatOffsetOfAStoppedRelay(RelaySettings settings, Outbox outbox)
      throws Exception {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("VACUUM ANALYZE"); // or autovacuum may commit its work in between
    }
    OutboxRelay relay = started(relay(settings));
    OutboxEvent warmUp = OutboxEvent.of("order", "o-warm-up", "BeforeTheLeaderStops", "{}");
    inTransaction(c -> outbox.append(c, warmUp));
    awaitOnTopic(warmUp);
    String heartbeatOffset = storedOffsetAfterAHeartbeatOf(relay);
    // Debezium also emits a due heartbeat at a change it filters out, such as the relay's own
    // heartbeat row; when the relay stored one of those between the wait and its stop, its
    // position is that row's: run the relay again.
    for (int run = 1; run < 5 && !heartbeatOffset.contains(COMMIT_OFFSET); run++) {
      heartbeatOffset = storedOffsetAfterAHeartbeatOf(started(relay(settings)));
    }
    assertThat(heartbeatOffset).contains(COMMIT_OFFSET);
    return heartbeatOffset;
  }

  /**
   * Stops the relay once it stored a heartbeat's offset at a commit written after this call: a
   * commit of the heartbeat's own row, since the outbox stays quiet meanwhile.
   */
  private String storedOffsetAfterAHeartbeatOf(OutboxRelay relay) throws SQLException {
    long now;
    try (Connection connection = database.connect()) {
      now = walInsertPosition(connection);
    }
    await("a heartbeat's offset at a commit past " + now + " stored")
        .atMost(PATIENCE)
        .until(
            () ->
                storedOffsetIfAny()
                    .map(offset -> offset.contains(COMMIT_OFFSET) && lsn("lsn", offset) >= now)
                    .orElse(false));
    relay.close();
    return storedOffset();
  }

  /**
   * A transaction the relay turns into no event; returns its 32-bit id. It writes a heartbeat row
   * (published, not captured): pgoutput sends nothing, not even BEGIN and COMMIT, for a transaction
   * that wrote no row, nor from PostgreSQL 15 on for one that wrote none of a published table.
   */
  private long committedTransaction() throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      statement.execute("INSERT INTO iox_relay_heartbeat (slot_name) VALUES ('relay-it-marker')");
      long transaction;
      try (ResultSet row = statement.executeQuery("SELECT txid_current()")) {
        row.next();
        transaction = row.getLong(1) & 0xFFFF_FFFFL;
      }
      connection.commit();
      return transaction;
    }
  }

  private boolean slotActive(RelaySettings settings) {
    return slotColumn(settings, "active::int") == 1;
  }

  private long slotRestartPosition(RelaySettings settings) {
    return slotColumn(settings, "restart_lsn - '0/0'");
  }

  private long slotColumn(RelaySettings settings, String column) {
    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT " + column + " FROM pg_replication_slots WHERE slot_name = ?")) {
      query.setString(1, settings.slotName());
      try (ResultSet row = query.executeQuery()) {
        assertThat(row.next()).as("slot " + settings.slotName()).isTrue();
        return row.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Stands in for a leader on the relay's slot: reads the pgoutput stream over a replication
   * connection and confirms positions the way Debezium does.
   */
  private final class SlotReader implements AutoCloseable {

    private final RelaySettings settings;
    private final Connection connection;
    private final PGReplicationStream stream;
    private final Map<Long, Long> commitEndByTransaction = new HashMap<>();
    private long openTransaction;
    private long lastReceived;

    SlotReader(RelaySettings settings) throws SQLException {
      this.settings = settings;
      connection = database.connectForReplication();
      stream =
          connection
              .unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(settings.slotName())
              .withSlotOption("proto_version", 1)
              .withSlotOption("publication_names", settings.publicationName())
              .start();
    }

    long commitEndOf(long transaction) throws Exception {
      await("the commit of transaction " + transaction + " decoded")
          .atMost(PATIENCE)
          .until(() -> readAvailable() && commitEndByTransaction.containsKey(transaction));
      return commitEndByTransaction.get(transaction);
    }

    void readPastWalWrittenSoFar() throws Exception {
      long written;
      try (Connection c = database.connect()) {
        written = walInsertPosition(c);
      }
      committedTransaction(); // its commit is the first message the stream sends past written
      await("the stream past " + written)
          .atMost(PATIENCE)
          .until(() -> readAvailable() && lastReceived >= written);
    }

    void confirm(long position) throws Exception {
      stream.setFlushedLSN(LogSequenceNumber.valueOf(position));
      stream.setAppliedLSN(LogSequenceNumber.valueOf(position));
      stream.forceUpdateStatus();
      await("the slot confirmed up to " + position)
          .atMost(PATIENCE)
          .until(() -> slotColumn(settings, "confirmed_flush_lsn - '0/0'") == position);
    }

    /** Reads what has arrived; pgoutput: 'B' final LSN, time, xid; 'C' flags, LSNs, time. */
    private boolean readAvailable() {
      try {
        for (ByteBuffer message = stream.readPending();
            message != null;
            message = stream.readPending()) {
          lastReceived = stream.getLastReceiveLSN().asLong();
          byte type = message.get(message.position());
          if (type == 'B') {
            openTransaction = Integer.toUnsignedLong(message.getInt(message.position() + 17));
          } else if (type == 'C') {
            commitEndByTransaction.put(openTransaction, lastReceived);
          }
        }
        return true;
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() throws SQLException {
      stream.close();
      connection.close();
    }
  }

  private long walInsertPosition(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_current_wal_insert_lsn() - '0/0'")) {
      row.next();
      return row.getLong(1);
    }
  }

  private Optional<String> storedOffsetIfAny() {
    return Rows.text(database.dataSource(), "SELECT offset_val FROM iox_relay_offsets");
  }

  private String storedOffset() {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT offset_val FROM iox_relay_offsets")) {
      assertThat(row.next()).as("an offset stored").isTrue();
      String offset = row.getString(1);
      assertThat(row.next()).as("one offset stored").isFalse();
      return offset;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Moves every LSN in a heartbeat's offset by the distance from its commit to commitEnd. */
  private String storeOffsetMovedTo(String offset, long commitEnd) throws SQLException {
    long distance = commitEnd - lsn("lsn", offset);
    Matcher lsn = Pattern.compile("(\"lsn(?:_proc|_commit)?\":)(\\d+)").matcher(offset);
    StringBuilder moved = new StringBuilder();
    while (lsn.find()) {
      lsn.appendReplacement(moved, lsn.group(1) + (Long.parseLong(lsn.group(2)) + distance));
    }
    lsn.appendTail(moved);
    try (Connection connection = database.connect();
        PreparedStatement update =
            connection.prepareStatement("UPDATE iox_relay_offsets SET offset_val = ?")) {
      update.setString(1, moved.toString());
      assertThat(update.executeUpdate()).isEqualTo(1);
    }
    return moved.toString();
  }

  private static long lsn(String key, String offset) {
    Matcher value = Pattern.compile("\"" + key + "\":(\\d+)").matcher(offset);
    assertThat(value.find()).as(key + " in " + offset).isTrue();
    return Long.parseLong(value.group(1));
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
  void aQuietOutboxLetsTheSlotReleaseWalWrittenToAnotherDatabase() throws Exception {
    // WAL is shared by every database of the server, but a slot decodes only its own (and from
    // PostgreSQL 15 on, pgoutput sends nothing for a transaction outside the publication, such as
    // the relay's own offset writes): with the outbox quiet, nothing reaches the relay that could
    // move the slot past the other database's writes, unless its heartbeat writes a published row.
    Duration heartbeat = Duration.ofSeconds(2);
    RelaySettings settings = settings().heartbeatInterval(heartbeat).build();
    // A heartbeat carries the position of the last commit the engine saw, and the heartbeat's own
    // write commits right after it: the slot is confirmed past WAL written elsewhere one interval
    // after the next heartbeat. The engine looks for changes and heartbeats every ENGINE_POLL.
    Duration bound =
        heartbeat
            .multipliedBy(2)
            .plus(settings.tuning().offsetFlushInterval())
            .plus(ENGINE_POLL.multipliedBy(3));
    OutboxRelay relay = started(relay(settings));
    OutboxEvent event = OutboxEvent.of("order", "o-1", "BeforeTheQuiet", "{}");
    inTransaction(c -> Outbox.builder().build().append(c, event));
    awaitOnTopic(event);
    await("the event stamped published")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0);

    try (Database elsewhere = DevStack.shared().postgres().createDatabase()) {
      long written = writeWal(elsewhere, 64 * MEGABYTE);
      System.out.println("WAL held by the slot after the write: " + retainedWal(settings));
      await("the slot confirmed past the other database's WAL")
          .atMost(bound)
          .until(() -> slotColumn(settings, "confirmed_flush_lsn - '0/0'") >= written);
      // PostgreSQL moves a slot's restart position only to a running-transactions record it
      // decoded and the slot was then confirmed past; a checkpoint logs one at once instead of
      // within 15 s. Every record older than the write is passed by now.
      checkpoint();
      Instant checkpointed = Instant.now();
      await("the slot's retained WAL below 16 MB")
          .atMost(bound)
          .until(() -> retainedWal(settings) < 16 * MEGABYTE);
      System.out.println(
          "retained WAL below 16 MB "
              + Duration.between(checkpointed, Instant.now()).toMillis()
              + " ms after the checkpoint");
    }
    assertThat(relay.status().publishedEvents()).as("heartbeats are no events").isEqualTo(1);
    assertThat(relay.lag().unpublishedRows()).isZero();
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

  /**
   * Commits {@code writing} with a lock on the outbox queued behind it: granted the moment the
   * transaction commits, before the relay can stamp, so the relay publishes {@code event} and then
   * waits on its UPDATE until {@code stamping} ends. Returns once the event is on its topic.
   */
  private void commitWithTheStampHeldBack(
      Connection writing, Connection stamping, OutboxEvent event) throws Exception {
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

  /** Runs a checkpoint, which logs the running transactions. */
  private void checkpoint() throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CHECKPOINT");
    }
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

  private long retainedWal(RelaySettings settings) {
    return slotColumn(settings, "pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint");
  }

  /** Writes at least {@code bytes} of WAL in another database; returns where the WAL ends then. */
  private long writeWal(Database elsewhere, long bytes) throws SQLException {
    try (Connection connection = elsewhere.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE filler (payload text)");
      long start = walInsertPosition(connection);
      long end = start;
      while (end - start < bytes) {
        statement.execute(
            "INSERT INTO filler SELECT repeat(md5(g::text), 32) FROM generate_series(1, 4000) g");
        end = walInsertPosition(connection);
      }
      return end;
    }
  }

  private RelaySettings.Builder settings() {
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

  private OutboxRelay relay(RelaySettings settings) {
    return relay(settings, RelayListener.NONE);
  }

  private OutboxRelay relay(RelaySettings settings, RelayListener listener) {
    OutboxRelay relay = OutboxRelay.builder(settings).listener(listener).build();
    cleanup.add(relay);
    return relay;
  }

  private OutboxRelay started(OutboxRelay relay) throws Exception {
    relay.start();
    await("relay running").atMost(PATIENCE).until(() -> relay.state() == RelayState.RUNNING);
    awaitSlot();
    return relay;
  }

  /** Only rows inserted after the slot exists are events (snapshot.mode=no_data). */
  private void awaitSlot() throws Exception {
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

  private void terminateSessionsOf(OutboxRelay relay) throws SQLException {
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

  /** Waits for the event on its topic ("order"); a topic reader of its own reads from the start. */
  private void awaitOnTopic(OutboxEvent event) {
    try (TopicReader reader = new TopicReader(topic("order"))) {
      reader.readUntil(seen -> distinctIds(seen).contains(event.id().toString()), PATIENCE);
    }
  }

  private String topic(String aggregateType) {
    return topicPrefix + "." + aggregateType;
  }

  static Set<String> distinctIds(List<ConsumerRecord<String, byte[]>> records) {
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(header(r, "id")));
    return ids;
  }

  private interface Work {
    void run(Connection connection) throws SQLException;
  }

  private void inTransaction(Work work) throws SQLException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      work.run(connection);
      connection.commit();
    }
  }
}
