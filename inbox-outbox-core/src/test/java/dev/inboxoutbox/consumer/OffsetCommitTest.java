package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.Test;

class OffsetCommitTest {

  private final Map<TopicPartition, OffsetAndMetadata> offsets =
      Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(42));

  @Test
  void anOffsetCommitRefusedDuringACooperativeRebalanceLeavesTheConsumerRunning() {
    // With the cooperative assignor a member keeps polling while the group rebalances, and
    // commitSync then throws instead of committing. The batch is in the database already: the next
    // commit of this member, or the partition's next owner through the inbox, covers it.
    MockConsumer<String, byte[]> rebalancing =
        new MockConsumer<>("earliest") {
          @Override
          public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            throw new RebalanceInProgressException("rebalance in progress");
          }
        };

    assertThatCode(() -> IdempotentConsumer.commit(rebalancing, offsets))
        .doesNotThrowAnyException();
  }
}
