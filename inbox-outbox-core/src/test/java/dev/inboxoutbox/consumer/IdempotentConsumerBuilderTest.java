package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.Outcome;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

/** What a refused builder leaves behind: nothing (no broker is needed to find out). */
class IdempotentConsumerBuilderTest {

  @Test
  void theCooperativeAssignorIsTheDefaultOnlyWhereAClientSideAssignorMayBeSet() {
    assertThat(IdempotentConsumer.takesDefaultAssignor(Map.of())).isTrue();
    assertThat(IdempotentConsumer.takesDefaultAssignor(Map.of("group.protocol", "classic")))
        .isTrue();
    assertThat(IdempotentConsumer.takesDefaultAssignor(Map.of("group.protocol", "CONSUMER")))
        .as("the broker assigns under Kafka 4's consumer group protocol")
        .isFalse();
    assertThat(
            IdempotentConsumer.takesDefaultAssignor(
                Map.of("partition.assignment.strategy", "range")))
        .as("the application's own choice stays")
        .isFalse();
  }

  @Test
  void aBuilderRefusedForAMissingTransactionSourceLeavesNoDeadLetterProducerRunning() {
    String operation = "refused-" + UUID.randomUUID();
    IdempotentConsumer.Builder builder =
        IdempotentConsumer.builder(
                BatchProcessor.builder(operation).handler((message, context) -> Outcome.success()))
            .kafka(Map.of("bootstrap.servers", "localhost:1"))
            .topics("orders");

    assertThatThrownBy(builder::build).isInstanceOf(RuntimeException.class);

    assertThat(Thread.getAllStackTraces().keySet())
        .map(Thread::getName)
        .noneMatch(name -> name.contains(operation + "-dead-letters"));
  }

  @Test
  void aProcessingWithItsOwnDeadLetterProducerIsRefusedNamingTheConsumersSetting() {
    IdempotentConsumer.Builder builder =
        IdempotentConsumer.builder(
                BatchProcessor.builder("twice")
                    .handler((message, context) -> Outcome.success())
                    .deadLetterProducer(new MockProducer<>()))
            .kafka(Map.of("bootstrap.servers", "localhost:1"))
            .topics("orders");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deadLetterProducerProperty");
  }
}
