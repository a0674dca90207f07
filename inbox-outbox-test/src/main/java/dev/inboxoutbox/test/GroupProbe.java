package dev.inboxoutbox.test;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/** Reads the consumer groups of a topic from the broker, for the race scenario. */
final class GroupProbe {

  private GroupProbe() {}

  /**
   * Whether a stable group has every partition of {@code topic} assigned, over at least {@code
   * members} members: the duplicates the race sends then reach different consumers at once.
   */
  static boolean partitionsSpread(
      Map<String, Object> kafka, String topic, int members, Duration patience)
      throws InterruptedException, ExecutionException, TimeoutException {
    try (Admin admin = Admin.create(kafka)) {
      long seconds = Math.max(1, patience.toSeconds());
      int partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(seconds, TimeUnit.SECONDS)
              .get(topic)
              .partitions()
              .size();
      Collection<GroupListing> groups = admin.listGroups().all().get(seconds, TimeUnit.SECONDS);
      List<String> ids = groups.stream().map(GroupListing::groupId).toList();
      if (ids.isEmpty()) {
        return false;
      }
      Map<String, ConsumerGroupDescription> described =
          admin.describeConsumerGroups(ids).all().get(seconds, TimeUnit.SECONDS);
      for (ConsumerGroupDescription group : described.values()) {
        if (group.groupState() != GroupState.STABLE) {
          continue;
        }
        Set<Integer> assigned = new HashSet<>();
        int holding = 0;
        for (MemberDescription member : group.members()) {
          boolean holds = false;
          for (TopicPartition partition : member.assignment().topicPartitions()) {
            if (partition.topic().equals(topic)) {
              assigned.add(partition.partition());
              holds = true;
            }
          }
          holding += holds ? 1 : 0;
        }
        if (assigned.size() == partitions && holding >= members) {
          return true;
        }
      }
      return false;
    }
  }
}
