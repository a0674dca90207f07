package dev.inboxoutbox.consumer;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch is not done: nothing after {@link #resumeAt()} was committed. The caller must not commit
 * further offsets, should back off, and resumes each partition at the given offset; records before
 * it are done. No record is ever skipped: a batch that keeps failing is retried, and shows in
 * {@link ConsumerStats#failure()} and {@link BatchProcessor#stuck()}.
 */
public abstract sealed class BatchIncompleteException extends Exception
    permits TransientFailureException, DeadLetterUndeliverableException {
  private static final long serialVersionUID = 1L;

  private final transient Map<TopicPartition, Long> resumeAt;

  BatchIncompleteException(String message, Throwable cause, Map<TopicPartition, Long> resumeAt) {
    super(message, cause);
    this.resumeAt = Map.copyOf(resumeAt);
  }

  /** Per partition of the batch: the offset of the first record not yet done. */
  public Map<TopicPartition, Long> resumeAt() {
    return resumeAt;
  }
}
