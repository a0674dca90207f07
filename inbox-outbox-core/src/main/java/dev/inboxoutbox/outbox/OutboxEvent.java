package dev.inboxoutbox.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One event to publish. The relay sends it to the topic of its aggregate type, keyed by the
 * aggregate id (so one aggregate's events stay in order on one partition), with the event id in the
 * {@code id} and {@code Idempotency-Key} headers.
 *
 * @param id the event id: the next consumer's idempotency key. Derive it from what caused the event
 *     when a retry of your own code could append the "same" event twice.
 * @param aggregateType routes the event: topic {@code outbox.event.<aggregateType>} by default
 * @param aggregateId the record key
 * @param type the event type, sent as the {@code type} header
 * @param payloadJson the record value, a JSON document
 * @param traceparent W3C trace context of the causing request, if any
 * @param correlationId id of the business flow the event belongs to, if any
 * @param causationId id of the message that caused this event, if any
 */
public record OutboxEvent(
    UUID id,
    String aggregateType,
    String aggregateId,
    String type,
    String payloadJson,
    Optional<String> traceparent,
    Optional<String> correlationId,
    Optional<String> causationId) {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  static final int MAX_NAME_LENGTH = 255;

  public OutboxEvent {
    Objects.requireNonNull(id, "id");
    requireName("aggregateType", aggregateType);
    requireName("aggregateId", aggregateId);
    requireName("type", type);
    Objects.requireNonNull(payloadJson, "payloadJson");
    requireJson(payloadJson);
    Objects.requireNonNull(traceparent, "traceparent");
    Objects.requireNonNull(correlationId, "correlationId");
    Objects.requireNonNull(causationId, "causationId");
  }

  /** An event with a random id and no trace headers. */
  public static OutboxEvent of(
      String aggregateType, String aggregateId, String type, String payloadJson) {
    return new OutboxEvent(
        UUID.randomUUID(),
        aggregateType,
        aggregateId,
        type,
        payloadJson,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public OutboxEvent withId(UUID id) {
    return new OutboxEvent(
        id, aggregateType, aggregateId, type, payloadJson, traceparent, correlationId, causationId);
  }

  public OutboxEvent withTraceparent(String traceparent) {
    return new OutboxEvent(
        id,
        aggregateType,
        aggregateId,
        type,
        payloadJson,
        Optional.ofNullable(traceparent),
        correlationId,
        causationId);
  }

  public OutboxEvent withCorrelationId(String correlationId) {
    return new OutboxEvent(
        id,
        aggregateType,
        aggregateId,
        type,
        payloadJson,
        traceparent,
        Optional.ofNullable(correlationId),
        causationId);
  }

  public OutboxEvent withCausationId(String causationId) {
    return new OutboxEvent(
        id,
        aggregateType,
        aggregateId,
        type,
        payloadJson,
        traceparent,
        correlationId,
        Optional.ofNullable(causationId));
  }

  private static void requireName(String what, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("outbox event " + what + " must not be blank");
    }
    if (value.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "outbox event "
              + what
              + " has "
              + value.length()
              + " characters; at most "
              + MAX_NAME_LENGTH);
    }
  }

  private static void requireJson(String payloadJson) {
    try {
      JSON.readTree(payloadJson);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "outbox event payload is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }
}
