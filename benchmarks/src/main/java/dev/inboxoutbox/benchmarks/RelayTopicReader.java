package dev.inboxoutbox.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Stamps each relayed record with the time it reached a consumer. */
final class RelayTopicReader implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;
  private final Map<String, Long> consumed;

  RelayTopicReader(String bootstrap, String topic, Map<String, Long> consumed) {
    this.consumed = consumed;
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
    while (running.get()) {
      for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
        long now = System.nanoTime();
        Header id = record.headers().lastHeader("id");
        consumed.putIfAbsent(new String(id.value(), StandardCharsets.UTF_8), now);
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(5_000);
    consumer.close();
  }
}
