package dev.inboxoutbox.outbox;

import io.micrometer.observation.ObservationRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Appends events to the outbox inside the caller's JDBC transaction, so they are published if and
 * only if the state change they describe commits.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().build();
 * connection.setAutoCommit(false);
 * placeOrder(connection, order);
 * outbox.append(connection, OutboxEvent.of("order", order.id(), "PaymentRequested", json));
 * connection.commit();
 * }</pre>
 *
 * Instances are immutable and thread-safe.
 */
public final class Outbox {

  private static final String INSERT =
      """
      INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload,
                          traceparent, tracestate, correlation_id, causation_id)
      SELECT id, aggregatetype, aggregateid, type, payload::jsonb,
             traceparent, tracestate, correlation_id, causation_id
      FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                  ?::text[], ?::text[])
          AS e(id, aggregatetype, aggregateid, type, payload, traceparent, tracestate,
               correlation_id, causation_id)
      """;

  private static final String DELETE = "DELETE FROM outbox WHERE id = ANY(?::uuid[])";

  private final Policy policy;
  private final AppendTracing tracing;

  private Outbox(Policy policy, AppendTracing tracing) {
    this.policy = policy;
    this.tracing = tracing;
  }

  public static Builder builder() {
    return new Builder();
  }

  public void append(Connection connection, OutboxEvent event) {
    appendAll(connection, List.of(event));
  }

  /** Appends events in one round trip; the relay publishes them in this order. */
  public void appendAll(Connection connection, List<OutboxEvent> events) {
    Objects.requireNonNull(events, "events");
    try {
      if (Objects.requireNonNull(connection, "connection").getAutoCommit()) {
        // An event committed on its own would be published even if its state change rolls back.
        throw new IllegalStateException(
            "the outbox must run inside the caller's transaction: call setAutoCommit(false) first,"
                + " so it commits or rolls back with the state change it belongs to");
      }
      if (events.isEmpty()) {
        return;
      }
      AppendTracing.Append append = tracing.start(events.size());
      try {
        insert(connection, events, append);
      } catch (SQLException | RuntimeException e) {
        append.failed(e);
        throw e;
      } finally {
        append.stop();
      }
    } catch (SQLException e) {
      throw new OutboxException("appending " + events.size() + " outbox event(s) failed", e);
    }
  }

  /**
   * An event without a trace context of its own takes the current one; a traceparent and its
   * tracestate always come from the same place.
   */
  private void insert(Connection connection, List<OutboxEvent> events, AppendTracing.Append current)
      throws SQLException {
    int size = events.size();
    String[] ids = new String[size];
    String[] aggregateTypes = new String[size];
    String[] aggregateIds = new String[size];
    String[] types = new String[size];
    String[] payloads = new String[size];
    String[] traceparents = new String[size];
    String[] tracestates = new String[size];
    String[] correlationIds = new String[size];
    String[] causationIds = new String[size];
    for (int i = 0; i < size; i++) {
      OutboxEvent event = events.get(i);
      ids[i] = event.id().toString();
      aggregateTypes[i] = event.aggregateType();
      aggregateIds[i] = event.aggregateId();
      types[i] = event.type();
      payloads[i] = event.payloadJson();
      boolean ownTrace = event.traceparent().isPresent();
      traceparents[i] = ownTrace ? event.traceparent().get() : current.traceparent();
      tracestates[i] = ownTrace ? event.tracestate().orElse(null) : current.tracestate();
      correlationIds[i] = event.correlationId().orElse(null);
      causationIds[i] = event.causationId().orElse(null);
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      int column = 1;
      for (String[] values :
          List.of(
              ids,
              aggregateTypes,
              aggregateIds,
              types,
              payloads,
              traceparents,
              tracestates,
              correlationIds,
              causationIds)) {
        insert.setArray(column++, connection.createArrayOf("text", values));
      }
      insert.executeUpdate();
    }
    if (policy == Policy.DELETE_AFTER_INSERT) {
      try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
        delete.setArray(1, connection.createArrayOf("text", ids));
        delete.executeUpdate();
      }
    }
  }

  /** A deterministic event id, for events whose cause has an identity of its own. */
  public static UUID eventId(String... causeParts) {
    return UUID.nameUUIDFromBytes(
        String.join("\u0000", causeParts).getBytes(StandardCharsets.UTF_8));
  }

  /** What happens to an outbox row once it is written. */
  public enum Policy {
    /**
     * The row stays, the relay stamps {@code published_at} once Kafka acknowledged it, and
     * retention deletes it later. Rows can be inspected and the relay's lag measured in rows.
     */
    KEEP,
    /**
     * The row is deleted in the same transaction right after the insert. The insert still reaches
     * the write-ahead log, which is all the relay reads; the table stays empty.
     */
    DELETE_AFTER_INSERT
  }

  /** Builds an {@link Outbox}. */
  public static final class Builder {
    private Policy policy = Policy.KEEP;
    private AppendTracing tracing = AppendTracing.OFF;

    private Builder() {}

    /** What happens to a row once written; default {@link Policy#KEEP}. */
    public Builder policy(Policy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Observes appends made inside an observed scope (an HTTP request, a consumed record): each is
     * an {@code outbox.append} observation, and events without a {@code traceparent} of their own
     * get its trace context, so the trace continues through the relay to the next consumer. Needs
     * {@code io.micrometer:micrometer-observation} (an optional dependency); default: none.
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      this.tracing = new ObservedAppends(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    public Outbox build() {
      return new Outbox(policy, tracing);
    }
  }
}
