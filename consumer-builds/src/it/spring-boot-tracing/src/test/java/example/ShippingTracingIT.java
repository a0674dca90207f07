package example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The application on the dev stack with Spring Boot's OpenTelemetry starter and no tracing code:
 * a command carrying a client's trace is consumed under a span of that trace, which says what the
 * inbox decided, and its event is relayed with the trace continued.
 */
@SpringBootTest(
    properties = {
      "inbox-outbox.relay.enabled=true",
      "management.tracing.sampling.probability=1.0",
      "management.tracing.export.otlp.enabled=false",
      "management.opentelemetry.tracing.export.schedule-delay=100ms"
    })
class ShippingTracingIT {

  private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CLIENT_SPAN = "00f067aa0ba902b7";

  /** Where the test reads the spans; the application exports to it as to any exporter. */
  @TestConfiguration
  static class Spans {
    @Bean
    InMemorySpanExporter spans() {
      return InMemorySpanExporter.create();
    }
  }

  @Autowired InMemorySpanExporter spans;

  @Test
  void aCommandsTraceRunsThroughTheConsumerIntoTheRelayedEvent() {
    TopicWriter.sendOne(
        RecordBuilder.to("shipments.commands")
            .key("s-1")
            .idempotencyKey("k-1")
            .header("traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01")
            .json("{\"parcel\":1}")
            .build());

    List<ConsumerRecord<String, byte[]>> relayed;
    try (TopicReader reader = new TopicReader("outbox.event.shipment")) {
      relayed = reader.readUntil(records -> !records.isEmpty(), Duration.ofSeconds(90));
    }
    assertThat(TopicReader.header(relayed.get(0), "traceparent"))
        .as("the relayed event continues the client's trace")
        .startsWith("00-" + CLIENT_TRACE + "-");

    SpanData consumed =
        await("the consumer's span exported")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    spans.getFinishedSpanItems().stream()
                        .filter(span -> span.getName().equals("shipments.commands process"))
                        .findFirst()
                        .orElse(null),
                span -> span != null);
    assertThat(consumed.getTraceId()).isEqualTo(CLIENT_TRACE);
    assertThat(consumed.getParentSpanId()).isEqualTo(CLIENT_SPAN);
    assertThat(consumed.getAttributes().get(AttributeKey.stringKey("inbox.decision")))
        .isEqualTo("new");
    assertThat(consumed.getAttributes().get(AttributeKey.stringKey("inbox.operation")))
        .isEqualTo("shipment-commands");
  }
}
