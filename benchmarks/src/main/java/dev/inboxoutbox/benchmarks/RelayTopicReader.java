package dev.inboxoutbox.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Stamps each relayed record, by its {@code id} header, with the time it reached a consumer ({@link
 * System#nanoTime()}), or with the time the broker appended it.
 */
final class RelayTopicReader implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private final Thread thread;
  private final Map<String, Long> consumed;
  private final ToLongFunction<ConsumerRecord<String, byte[]>> stamp;

  /** Stamps each record with {@link System#nanoTime()} when a poll returns it. */
  RelayTopicReader(String bootstrap, String topic, Map<String, Long> consumed) {
    this(bootstrap, topic, consumed, record -> System.nanoTime());
  }

  /**
   * Stamps each record with the broker's append time in epoch milliseconds: the topic must have
   * {@code message.timestamp.type=LogAppendTime}, which the reader checks.
   */
  static RelayTopicReader appendTimes(String bootstrap, String topic, Map<String, Long> consumed) {
    return new RelayTopicReader(
        bootstrap,
        topic,
        consumed,
        record -> {
          if (record.timestampType() != TimestampType.LOG_APPEND_TIME) {
            throw new IllegalStateException(
                topic + " has " + record.timestampType() + " timestamps, not LogAppendTime");
          }
          return record.timestamp();
        });
  }

  private RelayTopicReader(
      String bootstrap,
      String topic,
      Map<String, Long> consumed,
      ToLongFunction<ConsumerRecord<String, byte[]>> stamp) {
    this.consumed = consumed;
    this.stamp = stamp;
    consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "group.id",
                "bench-relay-" + UUID.randomUUID(),
                "auto.offset.reset",
                "earliest",
                "metadata.max.age.ms",
                "500"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    thread = new Thread(this::read, "relay-bench-reader");
  }

  void start() {
    thread.start();
  }

  private void read() {
    try {
      while (running.get()) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          long at = stamp.applyAsLong(record);
          Header id = record.headers().lastHeader("id");
          consumed.putIfAbsent(new String(id.value(), StandardCharsets.UTF_8), at);
        }
      }
    } catch (RuntimeException e) {
      failure.set(e);
    }
  }

  /** Throws what stopped the reader, if anything did: a waiting bench would only time out. */
  void check() {
    RuntimeException e = failure.get();
    if (e != null) {
      throw new IllegalStateException("the reader of the relayed topic stopped: " + e, e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(5_000);
    consumer.close();
  }
}
