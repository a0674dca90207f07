package dev.inboxoutbox.connect;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.connect.ConnectRest;
import dev.inboxoutbox.devstack.connect.ConnectRest.SourceOffset;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox connector on a real Kafka Connect worker (a child JVM started from the checked-in
 * worker file, the build's plugin archive on its plugin path), posted the checked-in connector
 * configuration.
 */
class OutboxConnectorIT {

  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final String CONNECTOR = "iox-outbox";

  private Database database;
  private String slot;
  private String group;
  private ConnectWorker worker;

  @BeforeEach
  void freshDatabaseAndWorker() {
    database = MigratedDatabase.create();
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    slot = "iox_connect_" + suffix;
    group = "iox-connect-" + suffix;
    worker =
        RelayFiles.worker(
                "worker-1", group, RelayFiles.environment(database, slot), workerDirectory(group))
            .start();
  }

  @AfterEach
  void closeAll() {
    worker.close();
    database.close();
  }

  @Test
  void theCheckedInFilesPublishEachRowWithTheEmbeddedRelaysTopicKeyValueAndHeaders() {
    ConnectRest rest = worker.rest();
    rest.putConnector(CONNECTOR, RelayFiles.connector());
    rest.awaitRunning(CONNECTOR, PATIENCE);

    String aggregateType = "fmt" + UUID.randomUUID().toString().substring(0, 8);
    OutboxEvent traced =
        OutboxEvent.builder(aggregateType, "order-1", "OrderPlaced", "{\"total\": 12}")
            .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .tracestate("congo=t61rcWkgMzE")
            .correlationId("corr-1")
            .causationId("cause-1")
            .build();
    OutboxEvent untraced = OutboxEvent.of(aggregateType, "order-2", "OrderPaid", "{}");
    append(List.of(traced, untraced));

    Map<String, ConsumerRecord<String, byte[]>> byId = new HashMap<>();
    try (TopicReader reader = new TopicReader("outbox.event." + aggregateType)) {
      reader
          .readUntil(seen -> ids(seen).size() == 2, PATIENCE)
          .forEach(record -> byId.put(header(record, "id"), record));
    }
    ConsumerRecord<String, byte[]> first = byId.get(traced.id().toString());
    assertThat(first.key()).isEqualTo("order-1");
    assertThat(value(first)).isEqualTo("{\"total\": 12}");
    assertThat(header(first, "Idempotency-Key")).isEqualTo(traced.id().toString());
    assertThat(header(first, "type")).isEqualTo("OrderPlaced");
    assertThat(header(first, "traceparent"))
        .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(header(first, "tracestate")).isEqualTo("congo=t61rcWkgMzE");
    assertThat(header(first, "correlation-id")).isEqualTo("corr-1");
    assertThat(header(first, "causation-id")).isEqualTo("cause-1");
    first.headers().forEach(h -> assertThat(h.key()).doesNotStartWith("__debezium"));
    ConsumerRecord<String, byte[]> second = byId.get(untraced.id().toString());
    assertThat(second.key()).isEqualTo("order-2");
    assertThat(value(second)).isEqualTo("{}");
    assertThat(header(second, "type")).isEqualTo("OrderPaid");
    assertThat(second.headers().lastHeader("traceparent").value())
        .as("the router's header for a null column (docs/relay.md)")
        .isNull();
    assertThat(rest.status(CONNECTOR).connector().state()).isEqualTo("RUNNING");
  }

  /**
   * The trace of a request that appended an event reaches the consumer through the worker: the
   * connector carries the row's context as the record's header, and an observed consumer continues
   * it under the append's span.
   */
  @Test
  void aRequestsTraceReachesAnObservedConsumerThroughTheWorker() throws Exception {
    ConnectRest rest = worker.rest();
    rest.putConnector(CONNECTOR, RelayFiles.connector());
    rest.awaitRunning(CONNECTOR, PATIENCE);
    String aggregateType = "trc" + UUID.randomUUID().toString().substring(0, 8);
    try (InMemoryTracing tracing = new InMemoryTracing()) {
      Outbox outbox = Outbox.builder().observationRegistry(tracing.registry()).build();
      Observation request = Observation.start("http.server.requests", tracing.registry());
      try (Observation.Scope scope = request.openScope();
          Connection connection = database.connect()) {
        connection.setAutoCommit(false);
        outbox.append(connection, OutboxEvent.of(aggregateType, "order-1", "OrderPlaced", "{}"));
        connection.commit();
      } finally {
        request.stop();
      }
      SpanData append = tracing.spansNamed("outbox append").get(0);

      List<ConsumerRecord<String, byte[]>> published;
      try (TopicReader reader = new TopicReader("outbox.event." + aggregateType)) {
        published = reader.readUntil(seen -> !seen.isEmpty(), PATIENCE);
      }
      assertThat(header(published.get(0), "traceparent"))
          .isEqualTo("00-" + append.getTraceId() + "-" + append.getSpanId() + "-01");

      try (KafkaProducer<String, byte[]> deadLetters =
          BatchProcessor.newDeadLetterProducer(
              Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
              "connect-traced")) {
        BatchProcessor.builder("connect-traced")
            .dataSource(database.dataSource())
            .handler((message, context) -> Outcome.success())
            .deadLetterProducer(deadLetters)
            .observationRegistry(tracing.registry())
            .build()
            .process(published);
      }
      SpanData consumed = tracing.spansNamed("outbox.event." + aggregateType + " process").get(0);
      assertThat(consumed.getTraceId()).isEqualTo(append.getTraceId());
      assertThat(consumed.getParentSpanId()).isEqualTo(append.getSpanId());
    }
  }

  @Test
  void aSteadyStreamLosesNoEventOverARestartASigtermAndAKillOfTheWorker() throws Exception {
    ConnectRest rest = worker.rest();
    rest.putConnector(CONNECTOR, RelayFiles.connector());
    rest.awaitRunning(CONNECTOR, PATIENCE);
    String aggregateType = "steady" + UUID.randomUUID().toString().substring(0, 8);

    Set<String> committed;
    try (SteadyStream stream = new SteadyStream(database, aggregateType);
        TopicReader reader = new TopicReader(stream.topic())) {
      awaitPublished(reader, stream.committed());

      rest.restart(CONNECTOR);
      rest.awaitRunning(CONNECTOR, PATIENCE);
      awaitPublished(reader, stream.committed());

      worker.stop(); // SIGTERM: tasks stopped, offsets flushed
      worker.start();
      rest.awaitRunning(CONNECTOR, PATIENCE);
      awaitPublished(reader, stream.committed());

      worker.kill(); // SIGKILL: the offsets of the last second are lost, the slot is not moved
      worker.start();
      rest.awaitRunning(CONNECTOR, PATIENCE);
      committed = stream.stop();
      awaitPublished(reader, committed);
    }
    assertThat(committed).hasSizeGreaterThan(100);
  }

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
    assertThat(worker.rest().status(CONNECTOR).running()).isTrue();
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
    ConnectRest rest = worker.rest();
    Map<String, String> config = RelayFiles.connector();
    config.put("connector.class", connectorClass);
    // Longer than Debezium's 500 ms poll: heartbeats fall due while the stream is quiet, at the
    // last commit, rather than at the next change.
    config.put("heartbeat.interval.ms", "1000");
    String aggregateType = layout.first().aggregateType();
    String topic = "outbox.event." + aggregateType;
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("VACUUM ANALYZE"); // or autovacuum may commit its work in between
    }
    rest.putConnector(CONNECTOR, config);
    rest.awaitRunning(CONNECTOR, PATIENCE);
    OutboxEvent warmUp = OutboxEvent.of(aggregateType, "o-warm-up", "BeforeTheStop", "{}");
    append(List.of(warmUp));
    try (TopicReader reader = new TopicReader(topic)) {
      awaitPublished(reader, Set.of(warmUp.id().toString()));
    }
    SourceOffset heartbeat = storedHeartbeatOffsetAtACommit(rest);

    Outbox outbox = Outbox.builder().build();
    long commitEnd;
    try (Connection longTransaction = database.connect()) {
      longTransaction.setAutoCommit(false);
      outbox.append(longTransaction, layout.first());
      try (Connection connection = database.connect()) {
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
    append(List.of(layout.afterwards()));
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

  private void append(List<OutboxEvent> events) {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      Outbox.builder().build().appendAll(connection, events);
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitPublished(TopicReader reader, Set<String> ids) {
    reader.readUntil(seen -> ids(seen).containsAll(ids), PATIENCE);
  }

  static Set<String> ids(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream()
        .map(record -> header(record, "id"))
        .collect(Collectors.toCollection(HashSet::new));
  }

  static Path workerDirectory(String group) {
    return Path.of(System.getProperty("basedir", "."), "target", "connect-workers", group);
  }

  private static long walInsertPosition(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_current_wal_insert_lsn() - '0/0'")) {
      row.next();
      return row.getLong(1);
    }
  }
}
