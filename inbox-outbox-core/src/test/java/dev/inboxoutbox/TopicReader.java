package dev.inboxoutbox;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The old entry point of RelayIT and IdempotentConsumerIT, now backed by the shared {@link
 * dev.inboxoutbox.testing.kafka.TopicReader}; new tests use that one directly.
 */
public final class TopicReader implements AutoCloseable {

  private final dev.inboxoutbox.testing.kafka.TopicReader reader;

  public TopicReader(String... topics) {
    reader = new dev.inboxoutbox.testing.kafka.TopicReader(topics);
  }

  public List<ConsumerRecord<String, byte[]>> readUntil(
      Predicate<List<ConsumerRecord<String, byte[]>>> done, Duration timeout) {
    return reader.readUntil(done, timeout);
  }

  public List<ConsumerRecord<String, byte[]>> readFor(Duration window) {
    return reader.readFor(window);
  }

  public static String header(ConsumerRecord<?, ?> record, String name) {
    return dev.inboxoutbox.testing.kafka.TopicReader.header(record, name);
  }

  public static String value(ConsumerRecord<?, byte[]> record) {
    return dev.inboxoutbox.testing.kafka.TopicReader.value(record);
  }

  @Override
  public void close() {
    reader.close();
  }
}
