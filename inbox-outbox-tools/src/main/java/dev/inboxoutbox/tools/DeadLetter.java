package dev.inboxoutbox.tools;

import dev.inboxoutbox.consumer.DeadLetterReason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * One record of a dead-letter topic, read back: where it sits, why it is there (the {@code
 * iox-dlt-*} headers the consumer wrote) and the original record it carries.
 */
record DeadLetter(ConsumerRecord<String, byte[]> record) {

  /** Header name prefixes the consumer adds to a dead letter; everything else is the original's. */
  private static final List<String> ADDED_PREFIXES = List.of("iox-dlt-", "kafka_dlt-");

  /**
   * On a re-driven record: the dead letter it came from, {@code <dlt-topic>-<partition>@<offset>}.
   */
  static final String REDRIVEN_FROM = "iox-redriven-from";

  /** {@code <partition>@<offset>} in the dead-letter topic, as list shows and show takes. */
  String position() {
    return record.partition() + "@" + record.offset();
  }

  Instant deadLetteredAt() {
    return Instant.ofEpochMilli(record.timestamp());
  }

  Duration age(Instant now) {
    return Duration.between(deadLetteredAt(), now);
  }

  String reason() {
    return text(DeadLetterReason.Headers.REASON);
  }

  String detail() {
    return text(DeadLetterReason.Headers.DETAIL);
  }

  String idempotencyKey() {
    return text(DeadLetterReason.Headers.IDEMPOTENCY_KEY);
  }

  String consumer() {
    return text(DeadLetterReason.Headers.CONSUMER);
  }

  String originalTopic() {
    return text(DeadLetterReason.Headers.ORIGINAL_TOPIC);
  }

  /** {@code <topic>-<partition>@<offset>} of the record that was dead-lettered. */
  String originalPosition() {
    return originalTopic()
        + "-"
        + text(DeadLetterReason.Headers.ORIGINAL_PARTITION)
        + "@"
        + text(DeadLetterReason.Headers.ORIGINAL_OFFSET);
  }

  /** Kafka refused the value's size, so the dead letter has none: the original still holds it. */
  boolean valueOmitted() {
    return text(DeadLetterReason.Headers.VALUE_OMITTED_BYTES) != null;
  }

  /** The original record's headers: the dead letter's without those the consumer added. */
  List<Header> originalHeaders() {
    List<Header> headers = new ArrayList<>();
    for (Header header : record.headers()) {
      if (ADDED_PREFIXES.stream().noneMatch(header.key()::startsWith)) {
        headers.add(new RecordHeader(header.key(), header.value()));
      }
    }
    return headers;
  }

  /** Every header as text, in order; spring-kafka's binary numbers decoded. */
  Map<String, String> headersAsText() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.merge(header.key(), headerText(header), (first, second) -> first + ", " + second);
    }
    return headers;
  }

  String valueAsText() {
    return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
  }

  /** The re-driven record is traced to this dead letter by {@link #REDRIVEN_FROM}. */
  String reference() {
    return record.topic() + "-" + position();
  }

  private String text(String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static String headerText(Header header) {
    byte[] value = header.value();
    if (value == null) {
      return null;
    }
    // spring-kafka writes these as big-endian numbers, not text.
    switch (header.key()) {
      case "kafka_dlt-original-partition":
        return value.length == Integer.BYTES
            ? String.valueOf(ByteBuffer.wrap(value).getInt())
            : new String(value, StandardCharsets.UTF_8);
      case "kafka_dlt-original-offset":
        return value.length == Long.BYTES
            ? String.valueOf(ByteBuffer.wrap(value).getLong())
            : new String(value, StandardCharsets.UTF_8);
      case "kafka_dlt-original-timestamp":
        return value.length == Long.BYTES
            ? Instant.ofEpochMilli(ByteBuffer.wrap(value).getLong()).toString()
            : new String(value, StandardCharsets.UTF_8);
      default:
        return new String(value, StandardCharsets.UTF_8);
    }
  }
}
