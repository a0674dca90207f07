package dev.inboxoutbox.connect;

import static dev.inboxoutbox.connect.OutboxConnectorIT.append;
import static dev.inboxoutbox.connect.OutboxConnectorIT.awaitPublished;
import static dev.inboxoutbox.connect.OutboxConnectorIT.ids;
import static dev.inboxoutbox.connect.RelayFiles.CONNECTOR;
import static dev.inboxoutbox.connect.WorkerPerTest.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.connect.ConnectRest;
import dev.inboxoutbox.devstack.connect.ConnectRest.SourceOffset;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where the outbox connector resumes on a real Kafka Connect worker: after a stored offset at a
 * commit that a long transaction's later row directly follows in the WAL ({@link ResumePosition}).
 * The layout is one of the WAL: nothing else may write to the cluster in between, so these tests
 * run one at a time on their fork's PostgreSQL.
 */
class ResumePositionIT {

  @RegisterExtension final WorkerPerTest relayed = new WorkerPerTest();

  @Test
  void aLongTransactionWhoseLaterRowFollowsTheStoredCommitInTheWalIsPublishedAfterARestart()
      throws Exception {
    Layout layout = new Layout("layout" + UUID.randomUUID().toString().substring(0, 8));
    Set<String> published = publishedAfter(layout, OutboxConnector.class.getName());

    assertThat(published).contains(layout.first().id().toString(), layout.last().id().toString());
  }

  /**
   * The negative control: Debezium's own connector, from the same plugin archive, loses both rows
   * of the long transaction, which is what {@link ResumePosition} prevents.
   */
  @Test
  void debeziumsOwnConnectorLosesThatTransactionWithoutAnError() throws Exception {
    Layout layout = new Layout("layout" + UUID.randomUUID().toString().substring(0, 8));
    Set<String> published =
        publishedAfter(layout, "io.debezium.connector.postgresql.PostgresConnector");

    assertThat(published)
        .doesNotContain(layout.first().id().toString(), layout.last().id().toString());
    assertThat(relayed.worker().rest().status(CONNECTOR).running()).isTrue();
  }

  /** A long transaction's two rows and an event committed after everything else. */
  private record Layout(OutboxEvent first, OutboxEvent last, OutboxEvent afterwards) {
    Layout(String aggregateType) {
      this(
          OutboxEvent.of(aggregateType, "o-long", "WrittenBeforeTheCommit", "{}"),
          OutboxEvent.of(aggregateType, "o-long", "WrittenRightAfterTheCommit", "{}"),
          OutboxEvent.of(aggregateType, "o-next", "CommittedAfterwards", "{}"));
    }
  }

  /**
   * Stops the connector once its stored offset is a heartbeat's at a commit, writes a long
   * transaction whose later row directly follows another transaction's commit in the WAL, stores
   * the offset the connector would have stored had its heartbeat come at that commit, resumes it
   * and answers the ids it published up to the event committed after everything else.
   */
  private Set<String> publishedAfter(Layout layout, String connectorClass) throws Exception {
    ConnectRest rest = relayed.worker().rest();
    Map<String, String> config = RelayFiles.connector();
    config.put("connector.class", connectorClass);
    // Longer than Debezium's 500 ms poll: heartbeats fall due while the stream is quiet, at the
    // last commit, rather than at the next change.
    config.put("heartbeat.interval.ms", "1000");
    String aggregateType = layout.first().aggregateType();
    String topic = "outbox.event." + aggregateType;
    try (Connection connection = relayed.database().connect();
        Statement statement = connection.createStatement()) {
      statement.execute("VACUUM ANALYZE"); // or autovacuum may commit its work in between
    }
    rest.putConnector(CONNECTOR, config);
    rest.awaitRunning(CONNECTOR, PATIENCE);
    OutboxEvent warmUp = OutboxEvent.of(aggregateType, "o-warm-up", "BeforeTheStop", "{}");
    append(relayed.database(), List.of(warmUp));
    try (TopicReader reader = new TopicReader(topic)) {
      awaitPublished(reader, Set.of(warmUp.id().toString()));
    }
    SourceOffset heartbeat = storedHeartbeatOffsetAtACommit(rest);

    Outbox outbox = Outbox.builder().build();
    long commitEnd;
    try (Connection longTransaction = relayed.database().connect()) {
      longTransaction.setAutoCommit(false);
      outbox.append(longTransaction, layout.first());
      try (Connection connection = relayed.database().connect()) {
        connection.setAutoCommit(false);
        outbox.append(
            connection, OutboxEvent.of(aggregateType, "o-short", "CommittedInBetween", "{}"));
        connection.commit();
        commitEnd = walInsertPosition(connection);
      }
      assertThat(walInsertPosition(longTransaction))
          .as("nothing was written to the WAL between the commit and the long transaction's row")
          .isEqualTo(commitEnd);
      outbox.append(longTransaction, layout.last());
      longTransaction.commit();
    }
    rest.alterOffsets(CONNECTOR, List.of(movedTo(heartbeat, commitEnd)));
    append(relayed.database(), List.of(layout.afterwards()));
    rest.resume(CONNECTOR);
    rest.awaitRunning(CONNECTOR, PATIENCE);
    try (TopicReader reader = new TopicReader(topic)) {
      return ids(
          reader.readUntil(
              seen -> ids(seen).contains(layout.afterwards().id().toString()), PATIENCE));
    }
  }

  /**
   * Stops the connector and answers its stored offset once that is a heartbeat's at a commit.
   * Stopping stores the offset of the last record sent, which may be a heartbeat Debezium emitted
   * at a change it filters out, such as its own heartbeat row: then the connector runs again.
   */
  private SourceOffset storedHeartbeatOffsetAtACommit(ConnectRest rest) {
    for (int attempt = 1; ; attempt++) {
      await("a heartbeat's offset at a commit stored")
          .atMost(PATIENCE)
          .until(() -> atACommit(rest.offsets(CONNECTOR)).isPresent());
      rest.stop(CONNECTOR);
      rest.awaitStopped(CONNECTOR, PATIENCE);
      Optional<SourceOffset> stored = atACommit(rest.offsets(CONNECTOR));
      if (stored.isPresent() || attempt == 5) {
        return stored.orElseThrow(
            () -> new AssertionError("no stop left a heartbeat's offset at a commit"));
      }
      rest.resume(CONNECTOR);
      rest.awaitRunning(CONNECTOR, PATIENCE);
    }
  }

  private static Optional<SourceOffset> atACommit(List<SourceOffset> offsets) {
    return offsets.size() == 1 && "COMMIT".equals(offsets.get(0).offset().get("messageType"))
        ? Optional.of(offsets.get(0))
        : Optional.empty();
  }

  /** The same offset, every LSN in it moved by the distance from its own event to {@code lsn}. */
  private static SourceOffset movedTo(SourceOffset offset, long lsn) {
    long distance = lsn - ((Number) offset.offset().get("lsn")).longValue();
    Map<String, Object> moved = new HashMap<>(offset.offset());
    for (String key : List.of("lsn", "lsn_proc", "lsn_commit")) {
      if (moved.get(key) instanceof Number position) {
        moved.put(key, position.longValue() + distance);
      }
    }
    return new SourceOffset(offset.partition(), moved);
  }

  private static long walInsertPosition(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_current_wal_insert_lsn() - '0/0'")) {
      row.next();
      return row.getLong(1);
    }
  }
}
