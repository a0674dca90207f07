package dev.inboxoutbox.relay;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.micrometer.observation.Observation;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded relay given an observation registry, on real PostgreSQL and Kafka: an event appended
 * inside a traced request is read and published under spans continuing the request's trace, and the
 * published record names the publication as the parent of whatever consumes it. An event appended
 * outside any trace goes out untraced.
 */
class RelayTracingIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private final InMemoryTracing tracing = new InMemoryTracing();
  private Database database;
  private String topicPrefix;
  private OutboxRelay relay;

  @BeforeEach
  void freshDatabase() {
    database = MigratedDatabase.create();
    topicPrefix = "t" + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void closeAll() {
    if (relay != null) {
      relay.close();
    }
    database.close();
    tracing.close();
  }

  @Test
  void aTracedEventIsPublishedUnderSpansOfItsTrace() throws Exception {
    relay =
        OutboxRelay.builder(RelayOnAFreshDatabase.settings(database, topicPrefix).build())
            .observationRegistry(tracing.registry())
            .build();
    relay.start();
    await("relay running").atMost(PATIENCE).until(() -> relay.state() == RelayState.RUNNING);
    await("slot created")
        .atMost(PATIENCE)
        .until(() -> relay.lag().unpublishedRows() == 0 && slotExists());

    Outbox outbox = Outbox.builder().observationRegistry(tracing.registry()).build();
    Observation request = Observation.start("http.server.requests", tracing.registry());
    try (Observation.Scope scope = request.openScope()) {
      append(outbox, OutboxEvent.of("order", "o-1", "OrderPlaced", "{}"));
    } finally {
      request.stop();
    }
    append(outbox, OutboxEvent.of("order", "o-2", "OrderPlaced", "{}"));

    List<ConsumerRecord<String, byte[]>> published;
    try (TopicReader reader = new TopicReader(topicPrefix + ".order")) {
      published = reader.readUntil(seen -> seen.size() >= 2, PATIENCE);
    }
    await("spans of the publication ended")
        .atMost(PATIENCE)
        .until(() -> !tracing.spansNamed(topicPrefix + ".order publish").isEmpty());

    SpanData append = tracing.spansNamed("outbox append").get(0);
    SpanData read = tracing.spansNamed("outbox relay").get(0);
    SpanData publish = tracing.spansNamed(topicPrefix + ".order publish").get(0);
    assertThat(List.of(append, read, publish))
        .extracting(SpanData::getTraceId)
        .containsOnly(append.getTraceId());
    assertThat(read.getParentSpanId()).as("read under the append").isEqualTo(append.getSpanId());
    assertThat(publish.getParentSpanId()).as("sent under the read").isEqualTo(read.getSpanId());
    assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(tracing.spansNamed("outbox relay")).as("one event traced").hasSize(1);

    ConsumerRecord<String, byte[]> traced =
        published.stream().filter(record -> record.key().equals("o-1")).findFirst().orElseThrow();
    assertThat(header(traced, "traceparent"))
        .as("the record names the publication as its consumer's parent")
        .isEqualTo("00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-01");
    ConsumerRecord<String, byte[]> untraced =
        published.stream().filter(record -> record.key().equals("o-2")).findFirst().orElseThrow();
    assertThat(header(untraced, "traceparent")).isNull();
  }

  private void append(Outbox outbox, OutboxEvent event) throws Exception {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      outbox.append(connection, event);
      connection.commit();
    }
  }

  private boolean slotExists() {
    return Rows.count(
            database.dataSource(),
            "SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")
        > 0;
  }
}
