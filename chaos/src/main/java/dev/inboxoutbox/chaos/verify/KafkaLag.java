package dev.inboxoutbox.chaos.verify;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Consumer-group lag, from the broker's committed offsets and log end offsets. */
public final class KafkaLag implements AutoCloseable {

  private final Admin admin;

  public KafkaLag(String bootstrap) {
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /** Records not yet committed by {@code group} on {@code topic} (all partitions). */
  public long lag(String group, String topic) throws ExecutionException, InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    List<TopicPartition> partitions;
    try {
      partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get()
              .get(topic)
              .partitions()
              .stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
    } catch (ExecutionException unknownTopic) {
      return 0; // nothing was ever written
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
        admin.listOffsets(latest).all().get();
    long lag = 0;
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata done = committed.get(partition);
      lag += ends.get(partition).offset() - (done == null ? 0 : done.offset());
    }
    return lag;
  }

  @Override
  public void close() {
    admin.close();
  }
}
