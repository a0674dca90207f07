package dev.inboxoutbox.test;

import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.DeadLetterReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a dead-letter topic without a consumer group, for the conflict scenario. The records were
 * processed before it is called, and a batch's dead letters are acknowledged before its hook runs:
 * what is not on the topic up to its current end was not dead-lettered.
 */
final class DeadLetterProbe {

  private DeadLetterProbe() {}

  /** The dead-letter reason per idempotency key, for those of {@code keys} on the topic. */
  static Map<String, String> reasons(
      Map<String, Object> kafka, String topic, List<String> keys, Duration patience) {
    Map<String, Object> properties = new HashMap<>(kafka);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    Map<String, String> reasons = new HashMap<>();
    try (KafkaConsumer<String, byte[]> reader =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> infos = reader.listTopics(patience).get(topic);
      if (infos == null || infos.isEmpty()) {
        return reasons;
      }
      List<TopicPartition> partitions =
          infos.stream().map(info -> new TopicPartition(topic, info.partition())).toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions, patience);
      await("the dead letters on " + topic + " read up to their end")
          // A consumer thread ended by an earlier scenario's simulated crash is not this wait's.
          .dontCatchUncaughtExceptions()
          .atMost(patience)
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> record : reader.poll(Duration.ofMillis(100))) {
                  String key = text(record, DeadLetterReason.Headers.IDEMPOTENCY_KEY);
                  if (key != null && keys.contains(key)) {
                    reasons.put(key, text(record, DeadLetterReason.Headers.REASON));
                  }
                }
                return partitions.stream()
                    .allMatch(partition -> reader.position(partition) >= ends.get(partition));
              });
    }
    return reasons;
  }

  private static String text(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
