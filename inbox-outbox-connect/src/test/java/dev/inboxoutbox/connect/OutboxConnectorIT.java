package dev.inboxoutbox.connect;

import static dev.inboxoutbox.connect.RelayFiles.CONNECTOR;
import static dev.inboxoutbox.connect.WorkerPerTest.PATIENCE;
import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.connect.ConnectRest;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outbox connector on a real Kafka Connect worker (a child JVM started from the checked-in
 * worker file, the build's plugin archive on its plugin path), posted the checked-in connector
 * configuration.
 */
class OutboxConnectorIT {

  @RegisterExtension final WorkerPerTest relayed = new WorkerPerTest();

  /**
   * The checked-in connector publishes each row as the embedded relay does. Put first with a port
   * nothing listens on, it is answered as Kafka Connect answers any configuration a connector's
   * validation rejects: 400 with what is wrong (not 500, KAFKA-20693), and no connector.
   */
  @Test
  void theCheckedInFilesPublishEachRowWithTheEmbeddedRelaysTopicKeyValueAndHeaders() {
    ConnectRest rest = relayed.worker().rest();
    Map<String, String> wrongPort = RelayFiles.connector();
    wrongPort.put("database.port", "1");
    assertThatThrownBy(() -> rest.putConnector(CONNECTOR, wrongPort))
        .isInstanceOf(ConnectRest.ConnectCallException.class)
        .hasMessageContaining("answered 400")
        .hasMessageContaining("Connection to localhost:1 refused")
        .hasMessageNotContaining("Cannot invoke");
    assertThatThrownBy(() -> rest.status(CONNECTOR)).hasMessageContaining("answered 404");

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
    append(relayed.database(), List.of(traced, untraced));

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
    ConnectRest rest = relayed.worker().rest();
    rest.putConnector(CONNECTOR, RelayFiles.connector());
    rest.awaitRunning(CONNECTOR, PATIENCE);
    String aggregateType = "trc" + UUID.randomUUID().toString().substring(0, 8);
    try (InMemoryTracing tracing = new InMemoryTracing()) {
      Outbox outbox = Outbox.builder().observationRegistry(tracing.registry()).build();
      Observation request = Observation.start("http.server.requests", tracing.registry());
      try (Observation.Scope scope = request.openScope();
          Connection connection = relayed.database().connect()) {
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
            .dataSource(relayed.database().dataSource())
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
    ConnectRest rest = relayed.worker().rest();
    rest.putConnector(CONNECTOR, RelayFiles.connector());
    rest.awaitRunning(CONNECTOR, PATIENCE);
    String aggregateType = "steady" + UUID.randomUUID().toString().substring(0, 8);

    Set<String> committed;
    try (SteadyStream stream = new SteadyStream(relayed.database(), aggregateType);
        TopicReader reader = new TopicReader(stream.topic())) {
      awaitPublished(reader, stream.committed());

      rest.restart(CONNECTOR);
      rest.awaitRunning(CONNECTOR, PATIENCE);
      awaitPublished(reader, stream.committed());

      relayed.worker().stop(); // SIGTERM: tasks stopped, offsets flushed
      relayed.worker().start();
      rest.awaitRunning(CONNECTOR, PATIENCE);
      awaitPublished(reader, stream.committed());

      // SIGKILL: the offsets of the last second are lost, the slot is not moved
      relayed.worker().kill();
      relayed.worker().start();
      rest.awaitRunning(CONNECTOR, PATIENCE);
      committed = stream.stop();
      awaitPublished(reader, committed);
    }
    assertThat(committed).hasSizeGreaterThan(100);
  }

  static void append(Database database, List<OutboxEvent> events) {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      Outbox.builder().build().appendAll(connection, events);
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void awaitPublished(TopicReader reader, Set<String> ids) {
    reader.readUntil(seen -> ids(seen).containsAll(ids), PATIENCE);
  }

  static Set<String> ids(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream()
        .map(record -> header(record, "id"))
        .collect(Collectors.toCollection(HashSet::new));
  }
}
