package dev.inboxoutbox.consumer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * Sends records that cannot be applied to {@code <topic><suffix>} with the original key, value and
 * headers, plus headers that say why. Sends are acknowledged before offsets are committed, so a
 * dead letter is never lost; a crash in between may send it twice.
 *
 * <p>A value too large for the dead-letter producer ({@code max.request.size}, counted before
 * compression, so a compressed record the broker took can exceed it) or for the dead-letter topic
 * ({@code max.message.bytes}) is left out: the dead letter is sent again with a null value, every
 * header and {@link #VALUE_OMITTED_BYTES}, and the original stays readable at its topic, partition
 * and offset.
 */
final class DeadLetters {

  static final String REASON = DeadLetterReason.Headers.REASON;
  static final String DETAIL = DeadLetterReason.Headers.DETAIL;
  static final String ORIGINAL_TOPIC = DeadLetterReason.Headers.ORIGINAL_TOPIC;
  static final String ORIGINAL_PARTITION = DeadLetterReason.Headers.ORIGINAL_PARTITION;
  static final String ORIGINAL_OFFSET = DeadLetterReason.Headers.ORIGINAL_OFFSET;
  static final String IDEMPOTENCY_KEY = DeadLetterReason.Headers.IDEMPOTENCY_KEY;
  static final String CONSUMER = DeadLetterReason.Headers.CONSUMER;
  static final String VALUE_OMITTED_BYTES = DeadLetterReason.Headers.VALUE_OMITTED_BYTES;

  /**
   * The headers spring-kafka's {@code DeadLetterPublishingRecoverer} writes, with its types
   * (partition a 4-byte int, offset and timestamp 8-byte longs, big-endian; the rest UTF-8), so its
   * tooling and any reader of those headers handle these dead letters too. No stack trace: the
   * reason and detail say what a trace would.
   */
  static final String SPRING_ORIGINAL_TOPIC = "kafka_dlt-original-topic";

  static final String SPRING_ORIGINAL_PARTITION = "kafka_dlt-original-partition";
  static final String SPRING_ORIGINAL_OFFSET = "kafka_dlt-original-offset";
  static final String SPRING_ORIGINAL_TIMESTAMP = "kafka_dlt-original-timestamp";
  static final String SPRING_ORIGINAL_TIMESTAMP_TYPE = "kafka_dlt-original-timestamp-type";
  static final String SPRING_ORIGINAL_CONSUMER_GROUP = "kafka_dlt-original-consumer-group";
  static final String SPRING_EXCEPTION_FQCN = "kafka_dlt-exception-fqcn";
  static final String SPRING_EXCEPTION_CAUSE_FQCN = "kafka_dlt-exception-cause-fqcn";
  static final String SPRING_EXCEPTION_MESSAGE = "kafka_dlt-exception-message";

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
   * The producer for dead letters: {@code base} settings, then idempotence with {@code acks=all} (a
   * dead letter must not be lost or doubled by producer retries) and the client id, then {@code
   * overrides}.
   */
  static KafkaProducer<String, byte[]> newProducer(
      Map<String, ?> base, String clientId, Map<String, ?> overrides) {
    Map<String, Object> properties = new HashMap<>(base);
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    properties.putAll(overrides);
    return new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
  }

  /** One record to dead-letter and why; {@code cause} is the exception that said so, if any. */
  record Entry(
      ConsumerRecord<String, byte[]> record,
      DeadLetterReason reason,
      String detail,
      String key,
      Throwable cause) {}

  String topicFor(String topic) {
    return topic + topicSuffix;
  }

  /**
   * Sends every entry and waits for Kafka to acknowledge all of them.
   *
   * @return the entries that went without their value
   * @throws DeadLetterSendException when a dead letter was not written, even without its value
   */
  List<Entry> publish(List<Entry> entries) throws DeadLetterSendException, InterruptedException {
    List<Future<RecordMetadata>> acks = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      acks.add(send(toRecord(entry, null)));
    }
    List<Entry> tooLarge = new ArrayList<>();
    List<Throwable> tooLargeCauses = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      Entry entry = entries.get(i);
      Throwable failure = awaitAck(acks.get(i));
      if (failure == null) {
        continue;
      }
      SendFailure kind = SendFailure.of(failure);
      if (kind == SendFailure.TOO_LARGE && entry.record().value() != null) {
        tooLarge.add(entry);
        tooLargeCauses.add(failure);
      } else {
        throw new DeadLetterSendException(describe(entry), failure, kind);
      }
    }
    for (int i = 0; i < tooLarge.size(); i++) {
      Entry entry = tooLarge.get(i);
      Throwable failure = awaitAck(send(toRecord(entry, tooLargeCauses.get(i))));
      if (failure != null) {
        SendFailure kind = SendFailure.of(failure);
        // Without its value it is as small as this dead letter gets: resending cannot help.
        throw new DeadLetterSendException(
            describe(entry) + " without its value",
            failure,
            kind == SendFailure.TOO_LARGE ? SendFailure.PERMANENT : kind);
      }
    }
    return List.copyOf(tooLarge);
  }

  private Future<RecordMetadata> send(ProducerRecord<String, byte[]> record) {
    try {
      return producer.send(record);
    } catch (RuntimeException e) {
      // A closed or fatally failed producer throws instead of failing the future.
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Returns the exception the send failed with, or null once Kafka acknowledged it. */
  private static Throwable awaitAck(Future<RecordMetadata> ack) throws InterruptedException {
    try {
      ack.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }

  private String describe(Entry entry) {
    ConsumerRecord<String, byte[]> original = entry.record();
    return "dead letter of "
        + original.topic()
        + "-"
        + original.partition()
        + "@"
        + original.offset()
        + " ("
        + entry.reason()
        + ") not written to "
        + topicFor(original.topic());
  }

  /** The dead letter of {@code entry}; without the value when {@code valueRefused} says why. */
  private ProducerRecord<String, byte[]> toRecord(Entry entry, Throwable valueRefused) {
    ConsumerRecord<String, byte[]> original = entry.record();
    RecordHeaders headers = new RecordHeaders();
    for (Header header : original.headers()) {
      headers.add(header);
    }
    put(headers, REASON, entry.reason().name());
    String detail = entry.detail() == null ? "" : entry.detail();
    if (valueRefused != null) {
      detail += "; value left out of the dead letter: " + valueRefused;
    }
    if (detail.length() > MAX_DETAIL_CHARS) {
      detail = detail.substring(0, MAX_DETAIL_CHARS);
    }
    put(headers, DETAIL, detail);
    put(headers, ORIGINAL_TOPIC, original.topic());
    put(headers, ORIGINAL_PARTITION, String.valueOf(original.partition()));
    put(headers, ORIGINAL_OFFSET, String.valueOf(original.offset()));
    put(headers, CONSUMER, consumer);
    if (entry.key() != null) {
      put(headers, IDEMPOTENCY_KEY, entry.key());
    }
    putSpringKafkaHeaders(headers, entry, detail);
    byte[] value = original.value();
    if (valueRefused != null) {
      put(headers, VALUE_OMITTED_BYTES, String.valueOf(value.length));
      value = null;
    }
    return new ProducerRecord<>(topicFor(original.topic()), null, original.key(), value, headers);
  }

  private void putSpringKafkaHeaders(RecordHeaders headers, Entry entry, String detail) {
    ConsumerRecord<String, byte[]> original = entry.record();
    put(headers, SPRING_ORIGINAL_TOPIC, original.topic());
    put(
        headers,
        SPRING_ORIGINAL_PARTITION,
        ByteBuffer.allocate(Integer.BYTES).putInt(original.partition()).array());
    put(
        headers,
        SPRING_ORIGINAL_OFFSET,
        ByteBuffer.allocate(Long.BYTES).putLong(original.offset()).array());
    put(
        headers,
        SPRING_ORIGINAL_TIMESTAMP,
        ByteBuffer.allocate(Long.BYTES).putLong(original.timestamp()).array());
    put(headers, SPRING_ORIGINAL_TIMESTAMP_TYPE, original.timestampType().toString());
    // The consumer group is the operation: the inbox scope the record was refused in.
    put(headers, SPRING_ORIGINAL_CONSUMER_GROUP, consumer);
    Throwable cause = entry.cause();
    // A record refused by a rule (a conflict, a size, an age) has no exception: the reason names
    // it.
    put(
        headers,
        SPRING_EXCEPTION_FQCN,
        cause == null ? DeadLetterReason.class.getName() : cause.getClass().getName());
    if (cause != null && cause.getCause() != null) {
      put(headers, SPRING_EXCEPTION_CAUSE_FQCN, cause.getCause().getClass().getName());
    }
    put(headers, SPRING_EXCEPTION_MESSAGE, entry.reason().name() + ": " + detail);
  }

  private static void put(RecordHeaders headers, String name, byte[] value) {
    headers.remove(name);
    headers.add(name, value);
  }

  private static void put(RecordHeaders headers, String name, String value) {
    headers.remove(name);
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
