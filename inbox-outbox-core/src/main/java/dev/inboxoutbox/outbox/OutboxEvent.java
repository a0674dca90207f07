package dev.inboxoutbox.outbox;

import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * One event to publish. The relay sends it to the topic of its aggregate type, keyed by the
 * aggregate id (so one aggregate's events stay in order on one partition), with the event id in the
 * {@code id} and {@code Idempotency-Key} headers.
 *
 * <pre>{@code
 * OutboxEvent.of("order", orderId, "OrderPlaced", json);              // random id, no trace headers
 * OutboxEvent.builder("order", orderId, "OrderPlaced", json)
 *     .id(Outbox.eventId("order-placed", orderId))
 *     .correlationId(flowId)
 *     .build();
 * }</pre>
 *
 * @param id the event id: the next consumer's idempotency key. Derive it from what caused the event
 *     when a retry of your own code could append the "same" event twice.
 * @param aggregateType routes the event: topic {@code outbox.event.<aggregateType>} by default
 * @param aggregateId the record key
 * @param type the event type, sent as the {@code type} header
 * @param payloadJson the record value, a JSON document
 * @param traceparent W3C trace context of the causing request, if any
 * @param tracestate the W3C {@code tracestate} that goes with {@code traceparent}, if any; never
 *     without it
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
    Optional<String> tracestate,
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
    Objects.requireNonNull(tracestate, "tracestate");
    if (tracestate.isPresent() && traceparent.isEmpty()) {
      // W3C: a tracestate without its traceparent is discarded by every receiver.
      throw new IllegalArgumentException(
          "outbox event has a tracestate but no traceparent; set both or neither");
    }
    Objects.requireNonNull(correlationId, "correlationId");
    Objects.requireNonNull(causationId, "causationId");
  }

  /** An event with a random id and no trace headers. */
  public static OutboxEvent of(
      String aggregateType, String aggregateId, String type, String payloadJson) {
    return builder(aggregateType, aggregateId, type, payloadJson).build();
  }

  /** An event with a random id and no trace headers until the builder sets them. */
  public static Builder builder(
      String aggregateType, String aggregateId, String type, String payloadJson) {
    return new Builder(aggregateType, aggregateId, type, payloadJson);
  }

  /** A builder starting from this event's values. */
  public Builder toBuilder() {
    Builder builder = new Builder(aggregateType, aggregateId, type, payloadJson).id(id);
    builder.traceparent = traceparent;
    builder.tracestate = tracestate;
    builder.correlationId = correlationId;
    builder.causationId = causationId;
    return builder;
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
    } catch (JacksonException e) {
      throw new IllegalArgumentException(
          "outbox event payload is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Builds an {@link OutboxEvent}; {@link #build()} validates every field. */
  public static final class Builder {
    private final String aggregateType;
    private final String aggregateId;
    private final String type;
    private final String payloadJson;
    private UUID id = UUID.randomUUID();
    private Optional<String> traceparent = Optional.empty();
    private Optional<String> tracestate = Optional.empty();
    private Optional<String> correlationId = Optional.empty();
    private Optional<String> causationId = Optional.empty();

    private Builder(String aggregateType, String aggregateId, String type, String payloadJson) {
      this.aggregateType = aggregateType;
      this.aggregateId = aggregateId;
      this.type = type;
      this.payloadJson = payloadJson;
    }

    /** The event id; default a random UUID. See {@link Outbox#eventId} for derived ids. */
    public Builder id(UUID id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /** W3C trace context of the causing request; default none. */
    public Builder traceparent(String traceparent) {
      this.traceparent = Optional.ofNullable(traceparent);
      return this;
    }

    /** The W3C {@code tracestate} that goes with the traceparent; default none. */
    public Builder tracestate(String tracestate) {
      this.tracestate = Optional.ofNullable(tracestate);
      return this;
    }

    /** Id of the business flow the event belongs to; default none. */
    public Builder correlationId(String correlationId) {
      this.correlationId = Optional.ofNullable(correlationId);
      return this;
    }

    /** Id of the message that caused this event; default none. */
    public Builder causationId(String causationId) {
      this.causationId = Optional.ofNullable(causationId);
      return this;
    }

    public OutboxEvent build() {
      return new OutboxEvent(
          id,
          aggregateType,
          aggregateId,
          type,
          payloadJson,
          traceparent,
          tracestate,
          correlationId,
          causationId);
    }
  }
}
