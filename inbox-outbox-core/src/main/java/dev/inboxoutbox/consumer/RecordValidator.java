package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.IdempotencyKey.InvalidKeyException;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import dev.inboxoutbox.inbox.Scope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Turns a polled record into a message to claim, or into a dead letter before any database work:
 * payload size, JSON, idempotency key, scope headers, and age against the key retention.
 */
final class RecordValidator {

  // Logged under the public type, whose category applications configure.
  private static final Logger log = LoggerFactory.getLogger(BatchProcessor.class);

  private final ConsumerSettings settings;
  private final Inbox inbox;
  private final ConsumerStats stats;

  RecordValidator(ConsumerSettings settings, Inbox inbox, ConsumerStats stats) {
    this.settings = settings;
    this.inbox = inbox;
    this.stats = stats;
  }

  ValidatedRecord validate(ConsumerRecord<String, byte[]> record) {
    String keyText = null;
    try {
      byte[] value = record.value();
      if (value != null && value.length > settings.maxPayloadBytes()) {
        keyText = settings.keyExtractor().extract(record, null);
        return ValidatedRecord.rejected(
            record,
            DeadLetterReason.OVERSIZE,
            "payload has " + value.length + " bytes; the limit is " + settings.maxPayloadBytes(),
            keyText,
            null);
      }
      JsonNode payload;
      try {
        payload = ClaimRequest.parseJson(value);
      } catch (InvalidPayloadException e) {
        keyText = settings.keyExtractor().extract(record, null);
        return ValidatedRecord.rejected(
            record, DeadLetterReason.MALFORMED_PAYLOAD, e.getMessage(), keyText, e);
      }
      keyText = settings.keyExtractor().extract(record, payload);
      IdempotencyKey key;
      try {
        key = IdempotencyKey.of(keyText);
      } catch (InvalidKeyException e) {
        return ValidatedRecord.rejected(
            record,
            DeadLetterReason.INVALID_KEY,
            e.getMessage(),
            keyText == null ? null : truncate(keyText),
            e);
      }
      Scope scope =
          Scope.of(
              header(record, settings.tenantHeader()),
              header(record, settings.principalHeader()),
              settings.operation());
      Instant timestamp = record.timestamp() < 0 ? null : Instant.ofEpochMilli(record.timestamp());
      Optional<ValidatedRecord> tooOld = tooOld(record, timestamp, keyText);
      if (tooOld.isPresent()) {
        return tooOld.get();
      }
      Map<String, String> headers = new LinkedHashMap<>();
      for (Header header : record.headers()) {
        headers.put(
            header.key(),
            header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
      }
      Optional<String> type = Optional.ofNullable(headers.get("type"));
      if (type.isEmpty() && payload.hasNonNull("type")) {
        JsonNode typeField = payload.get("type");
        // Jackson 3 refuses to coerce an object or array to text; it has none, as before.
        type = Optional.of(typeField.isContainer() ? "" : typeField.asString());
      }
      IncomingMessage message =
          new IncomingMessage(
              record.topic(),
              record.partition(),
              record.offset(),
              timestamp == null ? Instant.EPOCH : timestamp,
              record.key(),
              key,
              scope,
              type,
              payload,
              headers);
      return ValidatedRecord.valid(record, message, ClaimRequest.ofJson(scope, key, payload));
    } catch (RuntimeException e) {
      // A scope header that is too long, an extractor that throws: the record is bad, not the
      // system.
      return ValidatedRecord.rejected(
          record, DeadLetterReason.INVALID_KEY, BatchProcessor.describe(e), keyText, e);
    }
  }

  /**
   * A record older than its key retention: its key may be gone, so a repeat could not be told.
   * Dead-lettered, or applied with a warning under {@link ConsumerSettings.TooOldPolicy#APPLY}.
   */
  private Optional<ValidatedRecord> tooOld(
      ConsumerRecord<String, byte[]> record, Instant timestamp, String keyText) {
    Duration keyTtl = inbox.retentionFor(settings.operation()).keyTtl();
    if (timestamp == null || !timestamp.isBefore(Instant.now().minus(keyTtl))) {
      return Optional.empty();
    }
    if (settings.tooOldPolicy() == ConsumerSettings.TooOldPolicy.DEAD_LETTER) {
      return Optional.of(
          ValidatedRecord.rejected(
              record,
              DeadLetterReason.TOO_OLD,
              "record from "
                  + timestamp
                  + " is older than the key retention of "
                  + keyTtl
                  + "; its key may be gone, so a repeat could not be recognised",
              keyText,
              null));
    }
    stats.tooOldApplied();
    log.warn(
        "applying record {}-{}@{} older than the key retention ({})",
        record.topic(),
        record.partition(),
        record.offset(),
        keyTtl);
    return Optional.empty();
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    if (name == null) {
      return "";
    }
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? ""
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static String truncate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }
}
