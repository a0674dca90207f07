package dev.inboxoutbox.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutboxEventTest {

  @Test
  void blankRoutingFieldsAreRefusedWithTheFieldName() {
    assertThatThrownBy(() -> OutboxEvent.of(" ", "o-1", "OrderPlaced", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("aggregateType");
    assertThatThrownBy(() -> OutboxEvent.of("order", "", "OrderPlaced", "{}"))
        .hasMessageContaining("aggregateId");
    assertThatThrownBy(() -> OutboxEvent.of("order", "o-1", null, "{}"))
        .hasMessageContaining("type");
    assertThatThrownBy(() -> OutboxEvent.of("order", "x".repeat(256), "OrderPlaced", "{}"))
        .hasMessageContaining("256 characters");
  }

  @Test
  void aPayloadThatIsNotJsonIsRefused() {
    assertThatThrownBy(() -> OutboxEvent.of("order", "o-1", "OrderPlaced", "{\"a\":"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not valid JSON");
  }

  @Test
  void derivedEventIdsAreStablePerCause() {
    assertThat(Outbox.eventId("order-consumer", "key-1", "PaymentRequested"))
        .isEqualTo(Outbox.eventId("order-consumer", "key-1", "PaymentRequested"))
        .isNotEqualTo(Outbox.eventId("order-consumer", "key-2", "PaymentRequested"));
    // The separator keeps ("ab", "c") and ("a", "bc") apart.
    assertThat(Outbox.eventId("ab", "c")).isNotEqualTo(Outbox.eventId("a", "bc"));
  }

  @Test
  void theBuilderSetsOnlyWhatItIsGiven() {
    OutboxEvent event =
        OutboxEvent.builder("order", "o-1", "OrderPlaced", "{}")
            .correlationId("c")
            .causationId("k")
            .build();
    assertThat(event.correlationId()).contains("c");
    assertThat(event.causationId()).contains("k");
    assertThat(event.traceparent()).isEmpty();
    assertThat(event.tracestate()).isEmpty();
    assertThat(event.aggregateId()).isEqualTo("o-1");
  }

  @Test
  void toBuilderKeepsEverythingItDoesNotChange() {
    OutboxEvent original =
        OutboxEvent.builder("order", "o-1", "OrderPlaced", "{\"a\":1}")
            .id(Outbox.eventId("o-1", "placed"))
            .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .tracestate("congo=t61rcWkgMzE")
            .build();

    OutboxEvent copy = original.toBuilder().correlationId("c").build();

    assertThat(copy.id()).isEqualTo(original.id());
    assertThat(copy.traceparent()).isEqualTo(original.traceparent());
    assertThat(copy.tracestate()).contains("congo=t61rcWkgMzE");
    assertThat(copy.payloadJson()).isEqualTo(original.payloadJson());
    assertThat(copy.correlationId()).contains("c");
    assertThat(original.correlationId()).isEmpty();
  }

  @Test
  void aTracestateWithoutItsTraceparentIsRefused() {
    OutboxEvent.Builder builder =
        OutboxEvent.builder("order", "o-1", "OrderPlaced", "{}").tracestate("congo=t61rcWkgMzE");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tracestate")
        .hasMessageContaining("traceparent");
  }
}
