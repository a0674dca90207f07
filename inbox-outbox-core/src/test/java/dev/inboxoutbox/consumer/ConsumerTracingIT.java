package dev.inboxoutbox.consumer;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.kafka.Topics;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * A consumer given an observation registry, against real Kafka and PostgreSQL with the
 * OpenTelemetry SDK behind Micrometer: each record's span continues the trace its {@code
 * traceparent} header names, says what the inbox decided, holds the handler's outbox append and its
 * log correlation, and the outbox row carries the trace on.
 */
class ConsumerTracingIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final AttributeKey<String> DECISION = AttributeKey.stringKey("inbox.decision");

  private final InMemoryTracing tracing = new InMemoryTracing();
  private final List<String> traceIdsInTheHandlersMdc = new CopyOnWriteArrayList<>();
  private Database database;
  private String topic;
  private IdempotentConsumer consumer;

  private final MessageHandler placeOrder =
      (message, context) -> {
        traceIdsInTheHandlersMdc.add(String.valueOf(MDC.get("traceId")));
        try (PreparedStatement insert =
            context.connection().prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
          insert.setString(1, message.idempotencyKey().value());
          insert.executeUpdate();
        }
        context.emit(OutboxEvent.of("order", message.recordKey(), "OrderPlaced", "{}"));
        return Outcome.success("{\"placed\":true}");
      };

  /** A W3C {@code tracestate} a vendor's tracer upstream put beside the trace. */
  private static final String VENDOR_STATE = "congo=t61rcWkgMzE";

  @BeforeEach
  void setUp() throws Exception {
    database = MigratedDatabase.create();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)");
    }
    topic = "traced-orders-" + UUID.randomUUID().toString().substring(0, 8);
    Topics.create(topic, 1, Map.of());
    Topics.create(topic + ".DLT", 1, Map.of());
  }

  @AfterEach
  void tearDown() {
    if (consumer != null) {
      consumer.close();
    }
    database.close();
    tracing.close();
  }

  @Test
  void eachRecordsSpanContinuesItsTraceAndSaysWhatTheInboxDecided() throws Exception {
    String clientTraceparent = tracing.clientSpan("POST /orders");
    String traceId = clientTraceparent.split("-")[1];
    String clientSpanId = clientTraceparent.split("-")[2];
    try (TopicWriter kafka = new TopicWriter()) {
      kafka.send(order("key-1", "{\"qty\":1}", clientTraceparent));
      kafka.send(order("key-1", "{\"qty\":1}", clientTraceparent)); // a client retry
      kafka.send(order("key-1", "{\"qty\":2}", clientTraceparent)); // the key reused
      kafka.send(order("bad-json", "{\"qty\":", clientTraceparent));
    }

    consumer =
        IdempotentConsumer.builder(
                BatchProcessor.builder("order-consumer")
                    .dataSource(database.dataSource())
                    .handler(placeOrder)
                    .observationRegistry(tracing.registry()))
            .kafka(
                Map.of(
                    "bootstrap.servers",
                    DevStack.shared().kafka().bootstrapServers(),
                    "group.id",
                    "group-" + topic))
            .topics(topic)
            .build()
            .start();
    await("four records consumed")
        .atMost(PATIENCE)
        .until(() -> consumer.stats().snapshot().records() >= 4);

    List<SpanData> consumed = tracing.spansNamed(topic + " process");
    assertThat(consumed)
        .as("one span per record, each a child of the client's span")
        .hasSize(4)
        .allSatisfy(
            span -> {
              assertThat(span.getTraceId()).isEqualTo(traceId);
              assertThat(span.getParentSpanId()).isEqualTo(clientSpanId);
              assertThat(span.getKind()).isEqualTo(SpanKind.CONSUMER);
              assertThat(span.getAttributes().get(AttributeKey.stringKey("inbox.operation")))
                  .isEqualTo("order-consumer");
            });
    Map<String, SpanData> byDecision =
        consumed.stream()
            .collect(Collectors.toMap(span -> span.getAttributes().get(DECISION), span -> span));
    assertThat(byDecision).containsOnlyKeys("new", "duplicate", "conflict", "dead-letter");
    SpanData applied = byDecision.get("new");
    assertThat(applied.getAttributes().get(AttributeKey.stringKey("inbox.idempotency_key")))
        .isEqualTo("key-1");
    assertThat(applied.getAttributes().get(AttributeKey.stringKey("inbox.outcome")))
        .isEqualTo("success");
    assertThat(
            byDecision
                .get("dead-letter")
                .getAttributes()
                .get(AttributeKey.stringKey("inbox.dead_letter.reason")))
        .isEqualTo("MALFORMED_PAYLOAD");

    assertThat(traceIdsInTheHandlersMdc)
        .as("the trace id in the MDC while the handler ran (applied once)")
        .containsExactly(traceId);

    List<SpanData> appends = tracing.spansNamed("outbox append");
    assertThat(appends).hasSize(1);
    SpanData append = appends.get(0);
    assertThat(append.getParentSpanId())
        .as("the handler's append nests under the record's span")
        .isEqualTo(applied.getSpanId());
    assertThat(append.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(Rows.count(database.dataSource(), "SELECT count(*) FROM outbox")).isEqualTo(1);
    assertThat(Rows.text(database.dataSource(), "SELECT traceparent FROM outbox"))
        .as(
            "the outbox row carries the trace to the relay, naming the append as its parent; %s",
            tracing.finishedSpans())
        .contains("00-" + traceId + "-" + append.getSpanId() + "-01");
    assertThat(Rows.text(database.dataSource(), "SELECT tracestate FROM outbox"))
        .as("and the vendors' state the trace came with")
        .contains(VENDOR_STATE);

    List<ConsumerRecord<String, byte[]>> deadLetters;
    try (TopicReader reader = new TopicReader(topic + ".DLT")) {
      deadLetters = reader.readUntil(seen -> seen.size() >= 2, PATIENCE);
    }
    assertThat(deadLetters)
        .as("dead letters keep the record's trace header")
        .allSatisfy(dead -> assertThat(header(dead, "traceparent")).isEqualTo(clientTraceparent));
  }

  private RecordBuilder order(String key, String json, String traceparent) {
    return RecordBuilder.to(topic)
        .key("c-1")
        .idempotencyKey(key)
        .header("traceparent", traceparent)
        .header("tracestate", VENDOR_STATE)
        .json(json);
  }
}
