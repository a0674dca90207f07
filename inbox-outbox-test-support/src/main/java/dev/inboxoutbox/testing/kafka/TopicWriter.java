package dev.inboxoutbox.testing.kafka;

import dev.inboxoutbox.devstack.DevStack;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records to the shared dev-stack broker. Each send waits for the broker's acknowledgement,
 * so a record a test sent is on its topic before the test goes on.
 */
public final class TopicWriter implements AutoCloseable {

  private static final long ACKNOWLEDGEMENT_SECONDS = 30;

  private final KafkaProducer<String, byte[]> producer;

  public TopicWriter() {
    this(Map.of());
  }

  /** With producer settings over the defaults, such as {@code compression.type}. */
  public TopicWriter(Map<String, String> producerSettings) {
    Map<String, Object> settings = new HashMap<>(producerSettings);
    settings.putIfAbsent(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, DevStack.shared().kafka().bootstrapServers());
    producer = new KafkaProducer<>(settings, new StringSerializer(), new ByteArraySerializer());
  }

  /** Sends one record on a producer of its own. */
  public static RecordMetadata sendOne(ProducerRecord<String, byte[]> record) {
    try (TopicWriter writer = new TopicWriter()) {
      return writer.send(record);
    }
  }

  /** Builds the record, sends it and answers where the broker stored it. */
  public RecordMetadata send(RecordBuilder record) {
    return send(record.build());
  }

  /** Sends the record and answers where the broker stored it. */
  public RecordMetadata send(ProducerRecord<String, byte[]> record) {
    try {
      return producer.send(record).get(ACKNOWLEDGEMENT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to " + record.topic(), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the broker did not take a record for " + record.topic(), e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
