package dev.inboxoutbox.spring;

import java.util.Collection;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * The rebalance listener of an idempotent consumer's container. A container holds one listener, and
 * only when it has none does Spring Kafka install its own, which logs each assignment at INFO. This
 * one writes the same lines under the same logger, so the log reads as for any Spring Kafka
 * listener; tells the batch processor which partitions it no longer holds; then calls the listener
 * the application set on its container factory, if any, as the container would have.
 */
final class ContainerRebalanceListener implements ConsumerAwareRebalanceListener {

  /** Spring Kafka's containers log assignments under this logger: operators' filters expect it. */
  private static final LogAccessor log = new LogAccessor(KafkaMessageListenerContainer.class);

  private final String groupId;
  private final ConsumerRebalanceListener processor;
  private final ConsumerAwareRebalanceListener application;

  private ContainerRebalanceListener(
      String groupId,
      ConsumerRebalanceListener processor,
      ConsumerAwareRebalanceListener application) {
    this.groupId = groupId;
    this.processor = processor;
    this.application = application;
  }

  /**
   * The listener for group {@code groupId}: logs, then {@code processor}, then {@code application}
   * (the container's listener before this one replaces it; null when the application set none).
   */
  static ContainerRebalanceListener chain(
      String groupId, ConsumerRebalanceListener processor, ConsumerRebalanceListener application) {
    return new ContainerRebalanceListener(groupId, processor, consumerAware(application));
  }

  private static ConsumerAwareRebalanceListener consumerAware(
      ConsumerRebalanceListener application) {
    if (application instanceof ConsumerAwareRebalanceListener aware) {
      return aware;
    }
    if (application == null) {
      return new ConsumerAwareRebalanceListener() {};
    }
    // The consumer-aware methods' defaults call these, as the container calls a plain listener.
    return new ConsumerAwareRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        application.onPartitionsRevoked(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        application.onPartitionsAssigned(partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        application.onPartitionsLost(partitions);
      }
    };
  }

  @Override
  public void onPartitionsRevokedBeforeCommit(
      Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    log.info(() -> groupId + ": partitions revoked: " + partitions);
    processor.onPartitionsRevoked(partitions);
    application.onPartitionsRevokedBeforeCommit(consumer, partitions);
  }

  @Override
  public void onPartitionsRevokedAfterCommit(
      Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    application.onPartitionsRevokedAfterCommit(consumer, partitions);
  }

  @Override
  public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    log.info(() -> groupId + ": partitions lost: " + partitions);
    processor.onPartitionsLost(partitions);
    application.onPartitionsLost(consumer, partitions);
  }

  @Override
  public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    log.info(() -> groupId + ": partitions assigned: " + partitions);
    processor.onPartitionsAssigned(partitions);
    application.onPartitionsAssigned(consumer, partitions);
  }
}
