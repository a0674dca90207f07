package dev.inboxoutbox.payment;

import dev.inboxoutbox.devstack.DevStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic of the shared dev-stack broker from the beginning up to its end offsets, so "only
 * one record" is a statement about everything written so far, not about what one poll returned.
 */
final class TopicReader implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;
  private final String topic;

  TopicReader(String topic) {
    this.topic = topic;
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                DevStack.shared().kafka().bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
  }

  /** Every record with this key written so far. */
  List<ConsumerRecord<String, byte[]>> readAll(String key) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
            .map(partition -> new TopicPartition(topic, partition.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    Instant deadline = Instant.now().plusSeconds(10);
    while (partitions.stream()
        .anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("could not read " + topic + " to its end offsets " + end);
      }
      consumer.poll(Duration.ofMillis(100)).forEach(records::add);
    }
    return records.stream().filter(record -> key.equals(record.key())).toList();
  }

  /** Re-reads until {@code done} holds for the records with this key; returns them. */
  List<ConsumerRecord<String, byte[]>> readUntil(
      String key, Predicate<List<ConsumerRecord<String, byte[]>>> done, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    List<ConsumerRecord<String, byte[]>> records = readAll(key);
    while (!done.test(records)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(
            "gave up after "
                + timeout
                + " with "
                + records.size()
                + " records keyed "
                + key
                + " on "
                + topic);
      }
      Thread.sleep(100);
      records = readAll(key);
    }
    return records;
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  static String value(ConsumerRecord<?, byte[]> record) {
    return new String(record.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    // No group membership to leave, so closing is immediate.
    consumer.close();
  }
}
