package dev.inboxoutbox.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.DevStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads topics of the shared dev-stack broker from the beginning, for assertions. Everything read
 * is kept: each method answers with all records seen since the reader was opened.
 */
public final class TopicReader implements AutoCloseable {

  private static final Duration ONE_POLL = Duration.ofMillis(200);
  private static final Duration TO_THE_END = Duration.ofSeconds(30);

  private final List<String> topics;
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();

  public TopicReader(String... topics) {
    this.topics = List.of(topics);
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                DevStack.shared().kafka().bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false",
                // Topics the test has not written to yet are found as soon as they appear.
                ConsumerConfig.METADATA_MAX_AGE_CONFIG,
                "500",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
                "true"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(this.topics);
  }

  /** Polls until {@code done} holds for everything seen so far, or fails after {@code timeout}. */
  public List<ConsumerRecord<String, byte[]>> readUntil(
      Predicate<List<ConsumerRecord<String, byte[]>>> done, Duration timeout) {
    awaitPolling("records on " + topics + " that satisfy the test", timeout)
        .untilAsserted(
            () -> {
              pollOnce();
              assertThat(done.test(seen)).as("records so far: %s", describe(seen)).isTrue();
            });
    return List.copyOf(seen);
  }

  /**
   * Reads to the end of the topics until {@code done} holds for the records with this key, and
   * answers them: "exactly two" then means two among everything written, not two seen so far.
   */
  public List<ConsumerRecord<String, byte[]>> readUntil(
      String key, Predicate<List<ConsumerRecord<String, byte[]>>> done, Duration timeout) {
    awaitPolling("records keyed " + key + " on " + topics + " that satisfy the test", timeout)
        .untilAsserted(
            () ->
                assertThat(done.test(withKey(readToEnd(), key)))
                    .as("records keyed %s so far: %s", key, describe(withKey(seen, key)))
                    .isTrue());
    return withKey(seen, key);
  }

  /** Everything that arrives within {@code window}: for asserting that something did not come. */
  public List<ConsumerRecord<String, byte[]>> readFor(Duration window) {
    awaitPolling("nothing, only reading " + topics + " for " + window, window.plus(TO_THE_END))
        .during(window)
        .until(
            () -> {
              pollOnce();
              return true;
            });
    return List.copyOf(seen);
  }

  /**
   * Everything written to the topics up to now, so that "only one record" is a statement about all
   * that was written, not about what one poll returned.
   */
  public List<ConsumerRecord<String, byte[]>> readToEnd() {
    List<TopicPartition> partitions =
        topics.stream()
            .flatMap(
                topic ->
                    consumer.partitionsFor(topic, TO_THE_END).stream()
                        .map(partition -> new TopicPartition(topic, partition.partition())))
            .toList();
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, TO_THE_END);
    awaitPolling("reading " + topics + " to the end offsets " + ends, TO_THE_END)
        .until(
            () -> {
              pollOnce();
              return consumer.assignment().containsAll(ends.keySet())
                  && ends.entrySet().stream()
                      .allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
            });
    return List.copyOf(seen);
  }

  public static List<ConsumerRecord<String, byte[]>> withKey(
      List<ConsumerRecord<String, byte[]>> records, String key) {
    return records.stream().filter(record -> key.equals(record.key())).toList();
  }

  public static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  public static String value(ConsumerRecord<?, byte[]> record) {
    return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  private void pollOnce() {
    consumer.poll(ONE_POLL).forEach(seen::add);
  }

  /**
   * The consumer is polled on the test's own thread: a KafkaConsumer refuses use from two threads,
   * and each poll already waits up to {@link #ONE_POLL}.
   */
  private org.awaitility.core.ConditionFactory awaitPolling(String what, Duration timeout) {
    return await(what)
        .atMost(timeout)
        .pollInSameThread()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1));
  }

  private static String describe(List<ConsumerRecord<String, byte[]>> records) {
    StringBuilder text = new StringBuilder(records.size() + " records");
    for (int i = 0; i < Math.min(records.size(), 5); i++) {
      ConsumerRecord<String, byte[]> r = records.get(i);
      text.append("; ").append(r.topic()).append('/').append(r.key()).append('=').append(value(r));
    }
    return text.toString();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
