package dev.inboxoutbox.consumer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends records that cannot be applied to {@code <topic><suffix>} with the original key, value
 * and headers, plus headers that say why. Sends are acknowledged before offsets are committed, so
 * a dead letter is never lost; a crash in between may send it twice.
 */
public final class DeadLetters {

  public static final String REASON = "iox-dlt-reason";
  public static final String DETAIL = "iox-dlt-detail";
  public static final String ORIGINAL_TOPIC = "iox-dlt-original-topic";
  public static final String ORIGINAL_PARTITION = "iox-dlt-original-partition";
  public static final String ORIGINAL_OFFSET = "iox-dlt-original-offset";
  public static final String IDEMPOTENCY_KEY = "iox-dlt-idempotency-key";
  public static final String CONSUMER = "iox-dlt-consumer";

  private static final int MAX_DETAIL_CHARS = 1000;

  private final Producer<String, byte[]> producer;
  private final String topicSuffix;
  private final String consumer;

  DeadLetters(Producer<String, byte[]> producer, String topicSuffix, String consumer) {
    this.producer = producer;
    this.topicSuffix = topicSuffix;
    this.consumer = consumer;
  }

  /**
   * The producer for dead letters: {@code base} settings, then idempotence with {@code acks=all}
   * (a dead letter must not be lost or doubled by producer retries) and the client id, then {@code
   * overrides}.
   */
  public static KafkaProducer<String, byte[]> newProducer(
      Map<String, ?> base, String clientId, Map<String, ?> overrides) {
    Map<String, Object> properties = new HashMap<>(base);
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    properties.putAll(overrides);
    return new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
  }

  /** One record to dead-letter and why. */
  record Entry(
      ConsumerRecord<String, byte[]> record, DeadLetterReason reason, String detail, String key) {}

  String topicFor(String topic) {
    return topic + topicSuffix;
  }

  /** Sends every entry and waits for Kafka to acknowledge all of them. */
  void publish(List<Entry> entries) throws ExecutionException, InterruptedException {
    List<Future<RecordMetadata>> acks = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      acks.add(producer.send(toRecord(entry)));
    }
    for (Future<RecordMetadata> ack : acks) {
      ack.get();
    }
  }

  private ProducerRecord<String, byte[]> toRecord(Entry entry) {
    ConsumerRecord<String, byte[]> original = entry.record();
    RecordHeaders headers = new RecordHeaders();
    for (Header header : original.headers()) {
      headers.add(header);
    }
    put(headers, REASON, entry.reason().name());
    String detail = entry.detail() == null ? "" : entry.detail();
    put(headers, DETAIL, detail.length() > MAX_DETAIL_CHARS ? detail.substring(0, MAX_DETAIL_CHARS) : detail);
    put(headers, ORIGINAL_TOPIC, original.topic());
    put(headers, ORIGINAL_PARTITION, String.valueOf(original.partition()));
    put(headers, ORIGINAL_OFFSET, String.valueOf(original.offset()));
    put(headers, CONSUMER, consumer);
    if (entry.key() != null) {
      put(headers, IDEMPOTENCY_KEY, entry.key());
    }
    return new ProducerRecord<>(
        topicFor(original.topic()), null, original.key(), original.value(), headers);
  }

  private static void put(RecordHeaders headers, String name, String value) {
    headers.remove(name);
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
