package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The embedded relay starting again: from the offsets it stored, after a crash between publishing
 * and storing them, after a leader died before stamping, at the slot's restart position, and with
 * the WAL its slot holds while the outbox is quiet.
 */
class RelayRestartIT extends RelayOnAFreshDatabase {

  private static final long MEGABYTE = 1024 * 1024;
  private static final String COMMIT_OFFSET = "\"messageType\":\"COMMIT\"";

  /**
   * Longer than Debezium's 500 ms poll, so that a heartbeat falls due while the stream is quiet, at
   * the last commit, rather than at the next change, which is often the relay's own heartbeat row.
   */
  private static final Duration HEARTBEAT_AT_COMMITS = Duration.ofSeconds(1);

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

  /** Runs a checkpoint, which logs the running transactions. */
  private void checkpoint() throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CHECKPOINT");
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
}
