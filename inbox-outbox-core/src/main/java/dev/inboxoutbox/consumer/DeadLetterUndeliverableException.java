package dev.inboxoutbox.consumer;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka refused a dead letter for a reason a retry cannot fix (not authorized, invalid topic, too
 * large even without its value, a producer in a fatal state). Skipping the record would lose it
 * without a trace, so the batch is still retried with backoff, but as a stuck consumer: logged at
 * ERROR, counted, and reported by {@link BatchProcessor#stuck()} at once, until an operator fixes
 * the cause.
 */
final class DeadLetterUndeliverableException extends BatchProcessor.BatchIncompleteException {
  private static final long serialVersionUID = 1L;

  DeadLetterUndeliverableException(
      String message, Throwable cause, Map<TopicPartition, Long> resumeAt) {
    super(message, cause, resumeAt);
  }
}
