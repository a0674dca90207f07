package dev.inboxoutbox.tools;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.inboxoutbox.cli.OperatorError;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Consumer groups' members and the partitions each holds now, as the group coordinator describes
 * them through Kafka's Admin API: what {@code kafka-consumer-groups.sh --describe --members
 * --verbose} shows.
 */
final class ConsumerGroupMembers {

  static final List<String> COLUMNS =
      List.of("group", "state", "client_id", "host", "assignment", "member_id");

  /** An unreachable broker fails the command in seconds rather than after Kafka's minute. */
  private static final int TIMEOUT_SECONDS = 10;

  private ConsumerGroupMembers() {}

  /**
   * One row per member of each of {@code groups}, sorted by group and client id; a group without
   * members is one row with its state only, a group the cluster does not know has state {@code
   * unknown group}.
   */
  static List<List<Object>> describe(String bootstrap, Collection<String> groups) {
    if (groups.isEmpty()) {
      return List.of();
    }
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "iox-inspect",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                TIMEOUT_SECONDS * 1000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                TIMEOUT_SECONDS * 1000))) {
      List<String> sorted = groups.stream().distinct().sorted().toList();
      Map<String, KafkaFuture<ConsumerGroupDescription>> described =
          admin.describeConsumerGroups(sorted).describedGroups();
      List<List<Object>> rows = new ArrayList<>();
      for (String group : sorted) {
        rows.addAll(rowsOf(group, described.get(group)));
      }
      return rows;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OperatorError("interrupted describing consumer groups on " + bootstrap, e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new OperatorError(
          "cannot describe consumer groups on " + bootstrap + ": " + cause.getMessage(), cause);
    }
  }

  private static List<List<Object>> rowsOf(
      String groupId, KafkaFuture<ConsumerGroupDescription> future)
      throws InterruptedException, ExecutionException, TimeoutException {
    ConsumerGroupDescription group;
    try {
      // Longer than the Admin's own timeout, whose error names what it was waiting for.
      group = future.get(TIMEOUT_SECONDS + 5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return List.of(row(groupId, "unknown group", null));
      }
      throw e;
    }
    String state = group.groupState().toString();
    if (group.members().isEmpty()) {
      return List.of(row(groupId, state, null));
    }
    return group.members().stream()
        .sorted(Comparator.comparing(MemberDescription::clientId))
        .map(member -> row(groupId, state, member))
        .toList();
  }

  private static List<Object> row(String group, String state, MemberDescription member) {
    List<Object> row = new ArrayList<>(COLUMNS.size());
    row.add(group);
    row.add(state);
    row.add(member == null ? null : member.clientId());
    row.add(member == null ? null : member.host());
    row.add(member == null ? null : new Assignment(member.assignment().topicPartitions()));
    row.add(member == null ? null : member.consumerId());
    return row;
  }

  /**
   * A member's partitions: in JSON a sorted array of {@code topic-partition} names (as the
   * services' health details give them), in the table one short cell, {@code topic(0,1,2)} per
   * topic as {@code kafka-consumer-groups.sh} writes it, so a wide assignment is not cut off.
   */
  record Assignment(Collection<TopicPartition> partitions) {

    @JsonValue
    List<String> names() {
      return sorted().map(TopicPartition::toString).toList();
    }

    @Override
    public String toString() {
      Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
      sorted()
          .forEach(
              partition ->
                  byTopic
                      .computeIfAbsent(partition.topic(), topic -> new ArrayList<>())
                      .add(partition.partition()));
      return byTopic.entrySet().stream()
          .map(
              topic ->
                  topic.getKey()
                      + topic.getValue().stream()
                          .map(String::valueOf)
                          .collect(Collectors.joining(",", "(", ")")))
          .collect(Collectors.joining(" "));
    }

    private Stream<TopicPartition> sorted() {
      return partitions.stream()
          .sorted(
              Comparator.comparing(TopicPartition::topic)
                  .thenComparingInt(TopicPartition::partition));
    }
  }
}
