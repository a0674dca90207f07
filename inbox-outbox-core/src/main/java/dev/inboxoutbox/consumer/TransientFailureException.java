package dev.inboxoutbox.consumer;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The database (or the dead-letter topic) is failing: nothing after {@link #resumeAt()} was
 * committed. The caller must not commit further offsets, should back off, and resumes each
 * partition at the given offset; records before it are done.
 */
public final class TransientFailureException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Map<TopicPartition, Long> resumeAt;

  TransientFailureException(String message, Throwable cause, Map<TopicPartition, Long> resumeAt) {
    super(message, cause);
    this.resumeAt = Map.copyOf(resumeAt);
  }

  /** Per partition of the batch: the offset of the first record not yet done. */
  public Map<TopicPartition, Long> resumeAt() {
    return resumeAt;
  }
}
