package dev.inboxoutbox.relay;

import java.time.Duration;
import java.util.List;

/**
 * Called on the relay's thread after Kafka acknowledged a batch and before its offsets are marked
 * processed. An exception thrown here fails the run exactly like a crash at that point: the batch
 * is published again after the restart (at-least-once; the consumers' inbox absorbs the repeats).
 */
@FunctionalInterface
public interface RelayListener {

  RelayListener NONE = events -> {};

  void published(List<PublishedEvent> events);

  /**
   * Called once a batch is fully handled (offsets marked, and stored when the flush interval was
   * due), with where its time went. For measuring; the default ignores it.
   */
  default void handled(BatchTimings timings) {}

  /**
   * Where one batch's time went, in the order of the relay's path.
   *
   * @param events outbox events in the batch (heartbeats excluded)
   * @param records records handed over, heartbeats included
   * @param readToHandover from the connector reading the batch's oldest change from the slot to the
   *     engine handing the batch over (the engine's queue and the Event Router); wall clock,
   *     millisecond resolution
   * @param sinceLastBatch from the end of the previous batch to this hand-over: the engine polling
   *     its queue (waiting when there is nothing to read) and transforming the records
   * @param send converting records and handing them to the producer
   * @param acknowledge flushing the producer and waiting for every acknowledgement
   * @param stamp stamping {@code published_at}
   * @param listeners the {@link #published} callbacks
   * @param markProcessed marking offsets processed and, when the flush interval is due, storing
   *     them in the offset store (Debezium's offset commit runs inside this step)
   */
  record BatchTimings(
      int events,
      int records,
      Duration readToHandover,
      Duration sinceLastBatch,
      Duration send,
      Duration acknowledge,
      Duration stamp,
      Duration listeners,
      Duration markProcessed) {}
}
