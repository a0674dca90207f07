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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;

/** Reads a dead-letter topic without a consumer group, for the conflict scenario. */
final class DeadLetterProbe {

  private DeadLetterProbe() {}

  /** The dead-letter reason per idempotency key, for {@code keys} found within the patience. */
  static Map<String, String> reasons(
      Map<String, Object> kafka, String topic, List<String> keys, Duration patience) {
    Map<String, Object> properties = new HashMap<>(kafka);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    Map<String, String> reasons = new HashMap<>();
    try (KafkaConsumer<String, byte[]> reader =
        new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
      await("dead letters of " + keys + " on " + topic)
          // A consumer thread ended by an earlier scenario's simulated crash is not this wait's.
          .dontCatchUncaughtExceptions()
          .atMost(patience)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                if (reader.assignment().isEmpty()) {
                  List<TopicPartition> partitions =
                      reader.partitionsFor(topic).stream()
                          .map(info -> new TopicPartition(topic, info.partition()))
                          .toList();
                  if (partitions.isEmpty()) {
                    return false;
                  }
                  reader.assign(partitions);
                  reader.seekToBeginning(partitions);
                }
                for (ConsumerRecord<String, byte[]> record : reader.poll(Duration.ofMillis(200))) {
                  String key = text(record, DeadLetterReason.Headers.IDEMPOTENCY_KEY);
                  if (key != null && keys.contains(key)) {
                    reasons.put(key, text(record, DeadLetterReason.Headers.REASON));
                  }
                }
                return reasons.keySet().containsAll(keys);
              });
    } catch (ConditionTimeoutException e) {
      // The caller reports every key without a dead letter.
    }
    return reasons;
  }

  private static String text(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
