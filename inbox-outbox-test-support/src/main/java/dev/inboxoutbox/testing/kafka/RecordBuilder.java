package dev.inboxoutbox.testing.kafka;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/** A record as the framework's consumers receive it: a JSON body and its headers. */
public final class RecordBuilder {

  private final String topic;
  private final Map<String, byte[]> headers = new LinkedHashMap<>();
  private String key;
  private byte[] body = new byte[0];
  private Long timestamp;

  private RecordBuilder(String topic) {
    this.topic = topic;
  }

  public static RecordBuilder to(String topic) {
    return new RecordBuilder(topic);
  }

  /** The record key: the aggregate, which picks the partition. */
  public RecordBuilder key(String recordKey) {
    this.key = recordKey;
    return this;
  }

  public RecordBuilder idempotencyKey(String idempotencyKey) {
    return header("Idempotency-Key", idempotencyKey);
  }

  public RecordBuilder type(String type) {
    return header("type", type);
  }

  public RecordBuilder header(String name, String value) {
    return header(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /** A header as raw bytes: for values that are not UTF-8 text, as a foreign producer may send. */
  public RecordBuilder header(String name, byte[] value) {
    headers.put(name, value);
    return this;
  }

  public RecordBuilder json(String json) {
    return body(json.getBytes(StandardCharsets.UTF_8));
  }

  public RecordBuilder body(byte[] body) {
    this.body = body;
    return this;
  }

  /** The record's own timestamp; without one the producer stamps it. */
  public RecordBuilder timestamp(Long timestamp) {
    this.timestamp = timestamp;
    return this;
  }

  public ProducerRecord<String, byte[]> build() {
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null, timestamp, key, body);
    headers.forEach((name, value) -> record.headers().add(name, value));
    return record;
  }

  /**
   * The record as a consumer's poll returns it from {@code partition} at {@code offset}: for
   * driving a {@code BatchProcessor} directly, without a broker in between.
   */
  public ConsumerRecord<String, byte[]> consumed(int partition, long offset) {
    RecordHeaders recordHeaders = new RecordHeaders();
    headers.forEach(recordHeaders::add);
    return new ConsumerRecord<>(
        topic,
        partition,
        offset,
        timestamp == null ? System.currentTimeMillis() : timestamp,
        TimestampType.CREATE_TIME,
        key == null ? -1 : key.getBytes(StandardCharsets.UTF_8).length,
        body.length,
        key,
        body,
        recordHeaders,
        Optional.empty());
  }
}
