package dev.inboxoutbox.chaos.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Consumer-group lag, from the broker's committed offsets and log end offsets. */
public final class KafkaLag implements AutoCloseable {

  /**
   * A partition whose group has not committed up to its end: how many records, and the member the
   * group coordinator has it assigned to, if any.
   */
  public record PartitionLag(TopicPartition partition, long records, Optional<String> heldBy) {

    @Override
    public String toString() {
      return partition
          + " "
          + records
          + " behind, "
          + heldBy.map(member -> "held by " + member).orElse("assigned to no member");
    }
  }

  private final Admin admin;

  public KafkaLag(String bootstrap) {
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /** Records not yet committed by {@code group} on {@code topic} (all partitions). */
  public long lag(String group, String topic) throws ExecutionException, InterruptedException {
    return lagByPartition(group, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * The partitions of {@code topic} that {@code group} is behind on, each with the member holding
   * it: what to look at when a group stops catching up (a member that holds a partition without
   * consuming it, or a partition nobody holds).
   */
  public List<PartitionLag> behind(String group, String topic)
      throws ExecutionException, InterruptedException {
    Map<TopicPartition, Long> lagging = new LinkedHashMap<>(lagByPartition(group, topic));
    lagging.values().removeIf(records -> records <= 0);
    if (lagging.isEmpty()) {
      return List.of(); // caught up: who holds what does not matter
    }
    Map<TopicPartition, String> holders = new HashMap<>();
    for (MemberDescription member :
        admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().members()) {
      String name = member.clientId() + " (" + member.host() + ")";
      member.assignment().topicPartitions().forEach(partition -> holders.put(partition, name));
    }
    List<PartitionLag> behind = new ArrayList<>();
    lagging.forEach(
        (partition, records) ->
            behind.add(
                new PartitionLag(partition, records, Optional.ofNullable(holders.get(partition)))));
    return behind;
  }

  private Map<TopicPartition, Long> lagByPartition(String group, String topic)
      throws ExecutionException, InterruptedException {
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
      return Map.of(); // nothing was ever written
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    partitions.forEach(p -> latest.put(p, OffsetSpec.latest()));
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
        admin.listOffsets(latest).all().get();
    Map<TopicPartition, Long> lag = new LinkedHashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata done = committed.get(partition);
      lag.put(partition, ends.get(partition).offset() - (done == null ? 0 : done.offset()));
    }
    return lag;
  }

  @Override
  public void close() {
    admin.close();
  }
}
