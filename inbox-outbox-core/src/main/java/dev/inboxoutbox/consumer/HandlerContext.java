package dev.inboxoutbox.consumer;

import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.sql.Connection;
import java.util.List;

/** What a handler may touch: the batch's transaction and the outbox in it. */
public final class HandlerContext {

  private final Connection connection;
  private final Outbox outbox;
  private final IncomingMessage message;
  private final boolean observed;
  private int emitted;

  /**
   * @param observed whether the record's observation is current while the handler runs: the outbox
   *     then takes the trace from it, as a child of the incoming one
   */
  HandlerContext(Connection connection, Outbox outbox, IncomingMessage message, boolean observed) {
    this.connection = connection;
    this.outbox = outbox;
    this.message = message;
    this.observed = observed;
  }

  /**
   * The connection of the batch's open transaction, as the {@link TransactionRunner} handed it over
   * (in the Spring Boot starter, the one {@code JdbcTemplate} and {@code JdbcClient} use too); do
   * not commit, roll back or close it.
   */
  public Connection connection() {
    return connection;
  }

  /**
   * Appends an event to the outbox in this transaction. Unless the event sets them, its causation
   * id is the incoming idempotency key, and the correlation id and trace context are carried over
   * from the incoming headers (the correlation id defaults to the incoming key). A processor given
   * an observation registry leaves the traceparent to the outbox, which takes the current trace:
   * the record's span, a child of the incoming header's.
   */
  public void emit(OutboxEvent event) {
    emitAll(List.of(event));
  }

  public void emitAll(List<OutboxEvent> events) {
    List<OutboxEvent> traced = events.stream().map(this::traced).toList();
    outbox.appendAll(connection, traced);
    emitted += traced.size();
  }

  int emitted() {
    return emitted;
  }

  private OutboxEvent traced(OutboxEvent event) {
    OutboxEvent.Builder traced = event.toBuilder();
    String key = message.idempotencyKey().value();
    if (event.causationId().isEmpty()) {
      traced.causationId(key);
    }
    if (event.correlationId().isEmpty()) {
      traced.correlationId(message.header("correlation-id").orElse(key));
    }
    if (!observed && event.traceparent().isEmpty() && message.header("traceparent").isPresent()) {
      traced.traceparent(message.header("traceparent").get());
      traced.tracestate(message.header("tracestate").orElse(null));
    }
    return traced.build();
  }
}
