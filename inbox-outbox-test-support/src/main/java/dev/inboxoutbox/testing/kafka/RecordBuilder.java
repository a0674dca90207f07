package dev.inboxoutbox.testing.kafka;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

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
}
