package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.opentelemetry.api.trace.StatusCode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stamp of a batch runs while its records are on their way to Kafka, so it must commit only
 * once every record was acknowledged: a row stamped for a record Kafka rejected would read as
 * published although no consumer will ever see it.
 */
class KafkaPublisherIT {

  private Database database;
  private Connection stamping;
  private OutboxEvent event;

  @BeforeEach
  void outboxWithOneEvent() throws SQLException {
    database = MigratedDatabase.create();
    event = OutboxEvent.of("order", "o-1", "OrderPlaced", "{}");
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      Outbox.builder().build().append(connection, event);
      connection.commit();
    }
    stamping = database.connect();
    stamping.setAutoCommit(false);
  }

  @AfterEach
  void close() throws SQLException {
    stamping.close();
    database.close();
  }

  @Test
  void aBatchKafkaRejectedLeavesItsRowsUnstampedAndUnlocked() throws Exception {
    MockProducer<String, byte[]> rejecting =
        new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer()) {
          @Override
          public synchronized void flush() {
            errorNext(new RecordTooLargeException("rejected by the test"));
            super.flush();
          }
        };
    KafkaPublisher publisher =
        new KafkaPublisher(
            rejecting,
            stamping,
            "public.outbox",
            new CommitVisibility(stamping),
            RelayListener.NONE,
            events -> {},
            PublishTracing.OFF);

    assertThatThrownBy(() -> publisher.handleBatch(List.of(change(event)), new NoCommitter()))
        .isInstanceOf(RelayException.class)
        .hasMessageContaining("Kafka did not acknowledge outbox event " + event.id());

    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      // Fails on a lock timeout while a stamp transaction still holds the row.
      statement.execute("SET lock_timeout = '2s'");
      try (ResultSet row =
          statement.executeQuery(
              "SELECT published_at IS NULL FROM outbox WHERE id = '"
                  + event.id()
                  + "' FOR UPDATE")) {
        assertThat(row.next()).isTrue();
        assertThat(row.getBoolean(1)).as("published_at still NULL").isTrue();
      }
    }
  }

  /**
   * A batch Kafka rejected ends every publication it started, the rejected record's and those
   * behind it, with the rejection: none stays open and unexported.
   */
  @Test
  void aBatchKafkaRejectedEndsTheSpansOfEveryRecordItStarted() throws Exception {
    MockProducer<String, byte[]> rejecting =
        new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer()) {
          @Override
          public synchronized void flush() {
            errorNext(new RecordTooLargeException("rejected by the test"));
          }
        };
    OutboxEvent behind = OutboxEvent.of("order", "o-1", "OrderPaid", "{}");
    try (InMemoryTracing tracing = new InMemoryTracing()) {
      KafkaPublisher publisher =
          new KafkaPublisher(
              rejecting,
              null,
              "public.outbox",
              new CommitVisibility(stamping),
              RelayListener.NONE,
              events -> {},
              new ObservedPublishes(tracing.registry()));
      String traceparent = tracing.clientSpan("POST /orders");

      assertThatThrownBy(
              () ->
                  publisher.handleBatch(
                      List.of(change(event, traceparent), change(behind, traceparent)),
                      new NoCommitter()))
          .isInstanceOf(RelayException.class);

      assertThat(tracing.spansNamed("outbox.event.order publish"))
          .as("both records' publications ended with the rejection")
          .hasSize(2)
          .allSatisfy(
              span -> assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR));
      assertThat(tracing.spansNamed("outbox relay")).hasSize(2);
    }
  }

  @Test
  void aBatchKafkaAcknowledgedIsStampedBeforeTheListenersHearOfIt() throws Exception {
    MockProducer<String, byte[]> acknowledging =
        new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    List<Boolean> stampedWhenHeard = new ArrayList<>();
    KafkaPublisher publisher =
        new KafkaPublisher(
            acknowledging,
            stamping,
            "public.outbox",
            new CommitVisibility(stamping),
            events -> stampedWhenHeard.add(stampedSeenFromElsewhere()),
            events -> {},
            PublishTracing.OFF);

    publisher.handleBatch(List.of(change(event)), new NoCommitter());

    assertThat(stampedWhenHeard).containsExactly(true);
  }

  private boolean stampedSeenFromElsewhere() {
    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT published_at IS NOT NULL FROM outbox WHERE id = ?::uuid")) {
      query.setString(1, event.id().toString());
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return row.getBoolean(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The record the Event Router makes of the event's insert. */
  private static RecordChangeEvent<SourceRecord> change(OutboxEvent event) {
    return change(event, null);
  }

  /** The Event Router's record of {@code event}, with the row's trace context when not null. */
  private static RecordChangeEvent<SourceRecord> change(OutboxEvent event, String traceparent) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(KafkaPublisher.EVENT_ID_HEADER, event.id().toString());
    if (traceparent != null) {
      headers.addString("traceparent", traceparent);
    }
    SourceRecord record =
        new SourceRecord(
            Map.of(),
            Map.of(),
            "outbox.event.order",
            null,
            Schema.STRING_SCHEMA,
            "o-1",
            Schema.STRING_SCHEMA,
            "{}",
            System.currentTimeMillis(),
            headers);
    return () -> record;
  }

  private static final class NoCommitter
      implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
    @Override
    public void markProcessed(RecordChangeEvent<SourceRecord> record) {}

    @Override
    public void markBatchFinished() {}

    @Override
    public void markProcessed(
        RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets offsets) {}

    @Override
    public DebeziumEngine.Offsets buildOffsets() {
      return (key, value) -> {};
    }
  }
}
