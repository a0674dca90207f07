package dev.inboxoutbox.consumer;

import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Scope;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A Kafka record after validation: its key is valid, its payload is JSON.
 *
 * @param headers the record's headers as text (the last value of each name)
 * @param type the event type ({@code type} header, else the payload's {@code type} field), if any
 */
public record IncomingMessage(
    String topic,
    int partition,
    long offset,
    Instant timestamp,
    String recordKey,
    IdempotencyKey idempotencyKey,
    Scope scope,
    Optional<String> type,
    JsonNode payload,
    Map<String, String> headers) {

  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name));
  }
}
