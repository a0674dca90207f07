package dev.inboxoutbox.relay;

import dev.inboxoutbox.inbox.IdempotencyKey;
import io.debezium.connector.postgresql.SourceInfo;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Publishes the Event Router's records with an idempotent producer and marks them processed only
 * after Kafka acknowledged every record of the batch: a crash before that replays the batch, never
 * skips it. A batch leaves only once other sessions can see the transactions it came from ({@link
 * CommitVisibility}).
 */
final class KafkaPublisher
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

  /** The Event Router puts the outbox row id in this header. */
  static final String EVENT_ID_HEADER = "id";

  private final Producer<String, byte[]> producer;
  private final Connection markingConnection;
  private final CommitVisibility visibility;
  private final String markPublishedSql;
  private final RelayListener listener;
  private final Consumer<List<PublishedEvent>> onAcknowledged;
  private final PublishTracing tracing;

  /** System.nanoTime() when the previous batch was done; 0 before the first. */
  private long lastFinished;

  KafkaPublisher(
      Producer<String, byte[]> producer,
      Connection markingConnection,
      String outboxTable,
      CommitVisibility visibility,
      RelayListener listener,
      Consumer<List<PublishedEvent>> onAcknowledged,
      PublishTracing tracing) {
    this.tracing = tracing;
    this.producer = producer;
    this.markingConnection = markingConnection;
    this.markPublishedSql = markingConnection == null ? null : markPublishedSql(outboxTable);
    this.visibility = visibility;
    this.listener = listener;
    this.onAcknowledged = onAcknowledged;
  }

  /**
   * Each acknowledged id is looked up on its own through the primary key (LATERAL ... LIMIT 1) and
   * its row updated by row id. {@code id = ANY(?)} was planned as a filter of every unpublished row
   * against the whole batch, and a plain join against the ids as a hash of every unpublished row:
   * either way each batch cost more the larger the backlog, so a relay that fell behind slowed
   * down.
   */
  static String markPublishedSql(String outboxTable) {
    return """
        UPDATE %1$s AS o SET published_at = now()
          FROM unnest(?::uuid[]) AS acknowledged(id)
          CROSS JOIN LATERAL (
              SELECT u.ctid FROM %1$s u
              WHERE u.id = acknowledged.id AND u.published_at IS NULL
              LIMIT 1
          ) AS unpublished
         WHERE o.ctid = unpublished.ctid"""
        .formatted(outboxTable);
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> records,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    long handedOver = System.nanoTime();
    long handedOverMillis = System.currentTimeMillis();
    long oldestRead = Long.MAX_VALUE;
    List<String> eventIds = new ArrayList<>(records.size());
    List<String> keys = new ArrayList<>(records.size());
    List<ProducerRecord<String, byte[]>> outgoing = new ArrayList<>(records.size());
    Set<Long> transactions = new HashSet<>();
    for (RecordChangeEvent<SourceRecord> change : records) {
      SourceRecord record = change.record();
      if (record.timestamp() != null) {
        oldestRead = Math.min(oldestRead, record.timestamp());
      }
      String eventId = eventId(record);
      if (eventId == null) {
        continue; // heartbeats carry no event id (the Event Router sets it): they only move the
        // offset
      }
      eventIds.add(eventId);
      keys.add(record.key() == null ? null : record.key().toString());
      outgoing.add(toProducerRecord(record, eventId));
      if (record.sourceOffset().get(SourceInfo.TXID_KEY) instanceof Long transaction) {
        transactions.add(transaction);
      }
    }
    awaitVisible(transactions);
    List<Future<RecordMetadata>> acknowledgements = new ArrayList<>(outgoing.size());
    List<PublishTracing.Publish> publications = new ArrayList<>(outgoing.size());
    for (ProducerRecord<String, byte[]> record : outgoing) {
      publications.add(tracing.start(record));
      acknowledgements.add(producer.send(record));
    }
    long sent = System.nanoTime();
    // The stamp's UPDATE runs while the records are on their way to the broker, and commits only
    // once every acknowledgement is in: a batch Kafka rejects leaves its rows unstamped, as before.
    Optional<StampInProgress> stamp =
        eventIds.isEmpty() ? Optional.empty() : stampUncommitted(eventIds);
    long updated = System.nanoTime();
    if (!acknowledgements.isEmpty()) {
      // The whole batch is in the producer's buffer: waiting out linger.ms for more records that
      // cannot come would only delay the batch (and the next one behind it).
      producer.flush();
    }
    List<PublishedEvent> published = new ArrayList<>(eventIds.size());
    for (int i = 0; i < acknowledgements.size(); i++) {
      try {
        RecordMetadata metadata = acknowledgements.get(i).get();
        publications.get(i).stop();
        published.add(
            new PublishedEvent(
                eventIds.get(i),
                metadata.topic(),
                keys.get(i),
                metadata.partition(),
                metadata.offset(),
                Instant.now()));
      } catch (ExecutionException e) {
        // The batch fails here and is replayed: the records behind this one end with it too.
        for (PublishTracing.Publish unacknowledged : publications.subList(i, publications.size())) {
          unacknowledged.failed(e.getCause());
          unacknowledged.stop();
        }
        RelayException rejected =
            new RelayException(
                "Kafka did not acknowledge outbox event " + eventIds.get(i), e.getCause());
        stamp.ifPresent(inProgress -> inProgress.rollback(rejected));
        throw rejected;
      }
    }
    long acknowledged = System.nanoTime();
    stamp.ifPresent(StampInProgress::commit);
    long stamped = System.nanoTime();
    if (!published.isEmpty()) {
      listener.published(published);
      onAcknowledged.accept(published);
    }
    long notified = System.nanoTime();
    for (RecordChangeEvent<SourceRecord> change : records) {
      committer.markProcessed(change);
    }
    committer.markBatchFinished();
    long finished = System.nanoTime();
    listener.handled(
        new RelayListener.BatchTimings(
            published.size(),
            records.size(),
            Duration.ofMillis(
                oldestRead == Long.MAX_VALUE ? 0 : Math.max(0, handedOverMillis - oldestRead)),
            Duration.ofNanos(lastFinished == 0 ? 0 : handedOver - lastFinished),
            Duration.ofNanos(sent - handedOver),
            Duration.ofNanos(acknowledged - updated),
            Duration.ofNanos((updated - sent) + (stamped - acknowledged)),
            Duration.ofNanos(notified - stamped),
            Duration.ofNanos(finished - notified)));
    lastFinished = finished;
  }

  private void awaitVisible(Set<Long> transactions) throws InterruptedException {
    if (transactions.isEmpty()) {
      return;
    }
    try {
      visibility.await(transactions);
    } catch (SQLException e) {
      throw new RelayException(
          "checking that transactions " + transactions + " are visible failed", e);
    }
  }

  /** Runs the stamp's UPDATE in a transaction left open; empty when the relay does not stamp. */
  private Optional<StampInProgress> stampUncommitted(List<String> eventIds) {
    if (markPublishedSql == null) {
      return Optional.empty();
    }
    try (PreparedStatement update = markingConnection.prepareStatement(markPublishedSql)) {
      update.setArray(1, markingConnection.createArrayOf("text", eventIds.toArray()));
      update.executeUpdate();
      return Optional.of(new StampInProgress(eventIds.size()));
    } catch (SQLException e) {
      throw markingFailed(eventIds.size(), e);
    }
  }

  private RelayException markingFailed(int events, SQLException e) {
    return new RelayException("marking " + events + " outbox rows published failed", e);
  }

  /** The stamp of one batch, updated but not yet committed. */
  private final class StampInProgress {
    private final int events;

    StampInProgress(int events) {
      this.events = events;
    }

    void commit() {
      try {
        markingConnection.commit();
      } catch (SQLException e) {
        throw markingFailed(events, e);
      }
    }

    /** The batch failed for {@code cause}; a failed rollback is attached to it. */
    void rollback(RelayException cause) {
      try {
        markingConnection.rollback();
      } catch (SQLException e) {
        cause.addSuppressed(e);
      }
    }
  }

  private static String eventId(SourceRecord record) {
    Header header = record.headers().lastWithName(EVENT_ID_HEADER);
    return header == null || header.value() == null ? null : header.value().toString();
  }

  private static ProducerRecord<String, byte[]> toProducerRecord(
      SourceRecord record, String eventId) {
    RecordHeaders headers = new RecordHeaders();
    for (Header header : record.headers()) {
      if (header.value() != null) {
        headers.add(header.key(), header.value().toString().getBytes(StandardCharsets.UTF_8));
      }
    }
    headers.add(IdempotencyKey.HEADER, eventId.getBytes(StandardCharsets.UTF_8));
    Object key = record.key();
    Object value = record.value();
    if (value != null && !(value instanceof String)) {
      throw new RelayException(
          "outbox payload of event "
              + eventId
              + " arrived as "
              + value.getClass().getName()
              + "; the relay expects JSON text (do not enable table.expand.json.payload)");
    }
    return new ProducerRecord<>(
        record.topic(),
        record.kafkaPartition(),
        record.timestamp(),
        key == null ? null : key.toString(),
        value == null ? null : ((String) value).getBytes(StandardCharsets.UTF_8),
        headers);
  }
}
