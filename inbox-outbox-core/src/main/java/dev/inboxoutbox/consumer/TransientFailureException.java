package dev.inboxoutbox.consumer;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The database, or Kafka for a dead letter, failed in a way a retry may get past (a connection
 * lost, a serialization failure, a broker or leader away, a timeout).
 */
final class TransientFailureException extends BatchProcessor.BatchIncompleteException {
  private static final long serialVersionUID = 1L;

  TransientFailureException(String message, Throwable cause, Map<TopicPartition, Long> resumeAt) {
    super(message, cause, resumeAt);
  }
}
