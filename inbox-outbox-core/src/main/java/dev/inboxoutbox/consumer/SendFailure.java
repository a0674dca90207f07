package dev.inboxoutbox.consumer;

import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;

/** What a failed dead-letter send means for the batch behind it. */
enum SendFailure {
  /**
   * Over a size limit: the producer's {@code max.request.size} or {@code buffer.memory}, or the
   * topic's {@code max.message.bytes}. Sending the same record again cannot succeed; a smaller one
   * can.
   */
  TOO_LARGE,
  /**
   * Kafka marks it retriable: a broker down, a leader moving, a timeout. A later send may succeed.
   */
  RETRIABLE,
  /**
   * No retry of the same send succeeds until someone changes the cluster or the configuration:
   * authorization, an invalid topic, a producer in a fatal state, a serialization error.
   */
  PERMANENT;

  /**
   * Classifies the exception a send completed with (the cause of the future's ExecutionException).
   */
  static SendFailure of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RecordTooLargeException || t instanceof RecordBatchTooLargeException) {
        return TOO_LARGE;
      }
      if (t instanceof RetriableException) {
        return RETRIABLE;
      }
    }
    return PERMANENT;
  }
}
