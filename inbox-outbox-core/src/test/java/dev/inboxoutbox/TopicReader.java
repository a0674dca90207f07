package dev.inboxoutbox;

import dev.inboxoutbox.devstack.DevStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads topics of the shared dev-stack broker from the beginning, for assertions. */
public final class TopicReader implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();

  public TopicReader(String... topics) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                DevStack.shared().kafka().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.METADATA_MAX_AGE_CONFIG,
                "500",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
                "true"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of(topics));
  }

  /** Polls until {@code done} holds for everything seen so far, or fails after {@code timeout}. */
  public List<ConsumerRecord<String, byte[]>> readUntil(
      Predicate<List<ConsumerRecord<String, byte[]>>> done, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    while (!done.test(seen)) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(
            "gave up after " + timeout + " with " + seen.size() + " records: " + describe(seen));
      }
      consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
    }
    return List.copyOf(seen);
  }

  /** Everything that arrives within {@code window}. */
  public List<ConsumerRecord<String, byte[]>> readFor(Duration window) {
    Instant end = Instant.now().plus(window);
    while (Instant.now().isBefore(end)) {
      consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
    }
    return List.copyOf(seen);
  }

  public static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  public static String value(ConsumerRecord<?, byte[]> record) {
    return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  private static String describe(List<ConsumerRecord<String, byte[]>> records) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < Math.min(records.size(), 5); i++) {
      ConsumerRecord<String, byte[]> r = records.get(i);
      text.append(r.topic()).append('/').append(r.key()).append('=').append(value(r)).append("; ");
    }
    return text.toString();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
