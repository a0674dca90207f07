package dev.inboxoutbox.consumer;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter step of a batch: sends, counts and logs the dead letters, and turns a send Kafka
 * refused into the batch's failure: transient when a retry may succeed, undeliverable (ERROR, stuck
 * at once) when none can.
 */
final class DeadLetterPublisher {

  private static final Logger log = LoggerFactory.getLogger(DeadLetterPublisher.class);

  private final DeadLetters deadLetters;
  private final ConsumerStats stats;
  private final RecordTracing tracing;

  DeadLetterPublisher(DeadLetters deadLetters, ConsumerStats stats, RecordTracing tracing) {
    this.deadLetters = deadLetters;
    this.stats = stats;
    this.tracing = tracing;
  }

  /**
   * Sends the batch's dead letters and waits for Kafka to take them.
   *
   * @throws BatchProcessor.BatchIncompleteException when one was not written: the batch must be
   *     retried
   */
  void publish(List<DeadLetters.Entry> entries, Map<TopicPartition, Long> resumeAt)
      throws BatchProcessor.BatchIncompleteException, InterruptedException {
    if (entries.isEmpty()) {
      return;
    }
    List<DeadLetters.Entry> withoutValue;
    try {
      withoutValue = deadLetters.publish(entries);
    } catch (DeadLetterSendException e) {
      // The database work is committed; replaying the batch is absorbed by the inbox.
      throw failed(e, resumeAt);
    }
    for (DeadLetters.Entry entry : entries) {
      stats.deadLettered(entry.reason());
      if (entry.reason() != DeadLetterReason.CONFLICT) {
        // A conflict's claim was observed already, with its decision.
        tracing.deadLettered(entry.record(), entry.reason());
      }
      log.warn(
          "dead-lettered {}-{}@{} to {}: {} {}",
          entry.record().topic(),
          entry.record().partition(),
          entry.record().offset(),
          deadLetters.topicFor(entry.record().topic()),
          entry.reason(),
          entry.detail());
    }
    for (DeadLetters.Entry entry : withoutValue) {
      stats.deadLetteredWithoutValue();
      log.warn(
          "the dead letter of {}-{}@{} carries no value: Kafka refused its {} bytes; the original stays at that position",
          entry.record().topic(),
          entry.record().partition(),
          entry.record().offset(),
          entry.record().value().length);
    }
  }

  private BatchProcessor.BatchIncompleteException failed(
      DeadLetterSendException e, Map<TopicPartition, Long> resumeAt) {
    if (e.failure() == SendFailure.RETRIABLE) {
      stats.transientFailure();
      String message = "dead-letter topic did not acknowledge, retrying later: " + e.getMessage();
      stats.failed(resumeAt.keySet(), message, true, Instant.now());
      return new TransientFailureException(message, e.getCause(), resumeAt);
    }
    stats.deadLetterFailure();
    String message =
        e.getMessage()
            + "; no retry can fix this: the batch is retried with backoff until the cause is fixed";
    long attempts = stats.failed(resumeAt.keySet(), message, false, Instant.now());
    if (attempts == 1) {
      log.error("{} (partitions {})", message, resumeAt.keySet(), e.getCause());
    } else {
      log.error("{} (partitions {}, attempt {})", message, resumeAt.keySet(), attempts);
    }
    return new DeadLetterUndeliverableException(message, e.getCause(), resumeAt);
  }
}
