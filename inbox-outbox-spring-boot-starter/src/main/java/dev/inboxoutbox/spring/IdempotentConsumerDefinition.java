package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.ConsumerSettings;
import dev.inboxoutbox.consumer.MessageHandler;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Declare one as a bean and the starter runs a spring-kafka listener container for it: consumer
 * group = operation = inbox scope, batches applied once per key, dead letters, offsets committed
 * after the database.
 *
 * <pre>{@code
 * @Bean
 * IdempotentConsumerDefinition orders(OrderService service) {
 *   return IdempotentConsumerDefinition.of("order-consumer", service::apply, "orders");
 * }
 * }</pre>
 *
 * @param customizer adjusts the settings built from {@code inbox-outbox.consumer.*}
 */
public record IdempotentConsumerDefinition(
    String operation,
    List<String> topics,
    MessageHandler handler,
    UnaryOperator<ConsumerSettings.Builder> customizer) {

  public IdempotentConsumerDefinition {
    if (operation == null || operation.isBlank()) {
      throw new IllegalArgumentException("an idempotent consumer needs an operation name");
    }
    topics = List.copyOf(topics);
    if (topics.isEmpty()) {
      throw new IllegalArgumentException("idempotent consumer " + operation + " needs a topic");
    }
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(customizer, "customizer");
  }

  public static IdempotentConsumerDefinition of(
      String operation, MessageHandler handler, String... topics) {
    return new IdempotentConsumerDefinition(
        operation, List.of(topics), handler, UnaryOperator.identity());
  }

  /**
   * The same definition with settings adjusted beyond the properties, e.g. a payload key extractor.
   */
  public IdempotentConsumerDefinition withSettings(
      UnaryOperator<ConsumerSettings.Builder> customizer) {
    return new IdempotentConsumerDefinition(operation, topics, handler, customizer);
  }
}
