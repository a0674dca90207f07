package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.IdempotencyKey;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import tools.jackson.databind.JsonNode;

/**
 * Finds a record's idempotency key. Returns null when there is none; the runtime then dead-letters
 * the record as {@link DeadLetterReason#INVALID_KEY}, as it does for a key that fails validation.
 */
@FunctionalInterface
public interface KeyExtractor {

  String extract(ConsumerRecord<String, byte[]> record, JsonNode payload);

  /** The {@code Idempotency-Key} header: the default, and what the relay sets. */
  static KeyExtractor idempotencyKeyHeader() {
    return header(IdempotencyKey.HEADER);
  }

  /**
   * The last header of that name, as UTF-8 text; octets that are not valid UTF-8 make the record an
   * {@link DeadLetterReason#INVALID_KEY} dead letter.
   */
  static KeyExtractor header(String name) {
    Objects.requireNonNull(name, "name");
    return (record, payload) -> {
      Header header = record.headers().lastHeader(name);
      return header == null || header.value() == null ? null : IdempotencyKey.utf8(header.value());
    };
  }

  /** A top-level text field of the JSON payload, e.g. an event id. */
  static KeyExtractor payloadField(String field) {
    Objects.requireNonNull(field, "field");
    return (record, payload) -> {
      JsonNode value = payload == null ? null : payload.get(field);
      // An object or array has no text: it makes a blank, hence invalid, key.
      return value == null || value.isNull() ? null : value.isContainer() ? "" : value.asString();
    };
  }

  /** This extractor, or {@code fallback} where it finds nothing. */
  default KeyExtractor orElse(KeyExtractor fallback) {
    return (record, payload) -> {
      String key = extract(record, payload);
      return key != null ? key : fallback.extract(record, payload);
    };
  }
}
