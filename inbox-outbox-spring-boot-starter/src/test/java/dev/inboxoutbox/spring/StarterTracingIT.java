package dev.inboxoutbox.spring;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The starter with the application's {@link ObservationRegistry} (OpenTelemetry behind it, as
 * {@code micrometer-tracing-bridge-otel} wires it), real Kafka, PostgreSQL and the embedded relay:
 * a record's trace runs through the consumer's span and the outbox append into the relayed event's
 * headers, where the next consumer continues it.
 */
class StarterTracingIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final InMemoryTracing TRACING = new InMemoryTracing();

  private DevStackApplication app;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    ObservationRegistry observationRegistry() {
      return TRACING.registry();
    }

    @Bean
    IdempotentConsumerDefinition orders() {
      return IdempotentConsumerDefinition.of(
          "traced-orders",
          (message, context) -> {
            try (PreparedStatement insert =
                context.connection().prepareStatement("INSERT INTO orders (key) VALUES (?)")) {
              insert.setString(1, message.idempotencyKey().value());
              insert.executeUpdate();
            }
            context.emit(OutboxEvent.of("order", message.recordKey(), "OrderPlaced", "{}"));
            return Outcome.success();
          },
          System.getProperty("test.topic"));
    }
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
    TRACING.close();
  }

  @Test
  void aRecordsTraceRunsThroughTheConsumerAndTheOutboxIntoTheRelayedEvent() throws Exception {
    String topic = "traced-" + UUID.randomUUID().toString().substring(0, 8);
    System.setProperty("test.topic", topic);
    app =
        DevStackApplication.start(
            App.class,
            WebApplicationType.NONE,
            "CREATE TABLE orders (id bigserial PRIMARY KEY, key text NOT NULL)",
            "inbox-outbox.relay.enabled=true",
            "inbox-outbox.relay.topic-replacement=" + topic + ".events.${routedByValue}");
    String client = TRACING.clientSpan("POST /orders");
    String traceId = client.split("-")[1];
    try (TopicWriter kafka = new TopicWriter()) {
      kafka.send(
          RecordBuilder.to(topic)
              .key("o-1")
              .idempotencyKey("k-1")
              .header("traceparent", client)
              .json("{\"n\":1}"));
    }

    List<ConsumerRecord<String, byte[]>> relayed;
    try (TopicReader reader = new TopicReader(topic + ".events.order")) {
      relayed = reader.readUntil(seen -> !seen.isEmpty(), PATIENCE);
    }

    List<SpanData> consumed = TRACING.spansNamed(topic + " process");
    assertThat(consumed).hasSize(1);
    SpanData record = consumed.get(0);
    assertThat(record.getTraceId()).isEqualTo(traceId);
    assertThat(record.getParentSpanId()).isEqualTo(client.split("-")[2]);
    assertThat(record.getAttributes().get(AttributeKey.stringKey("inbox.operation")))
        .isEqualTo("traced-orders");
    assertThat(record.getAttributes().get(AttributeKey.stringKey("inbox.decision")))
        .isEqualTo("new");
    SpanData append = TRACING.spansNamed("outbox append").get(0);
    assertThat(append.getParentSpanId()).isEqualTo(record.getSpanId());
    SpanData publish = TRACING.spansNamed(topic + ".events.order publish").get(0);
    assertThat(publish.getTraceId()).isEqualTo(traceId);
    assertThat(header(relayed.get(0), "traceparent"))
        .as("the relayed event continues the trace from the relay's publication")
        .isEqualTo("00-" + traceId + "-" + publish.getSpanId() + "-01");
  }
}
