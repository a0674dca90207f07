package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.BatchMessageListener;

/**
 * A spring-kafka batch listener over a {@link BatchProcessor}. Use it in a container with {@code
 * AckMode} BATCH, TIME, COUNT or COUNT_TIME: the container commits the offsets after {@code
 * onMessage} returns, that is after the database commit and the dead letters. A batch that cannot
 * be finished (a failing database, a dead letter Kafka does not take) is thrown, so the container's
 * error handler backs off and hands the same batch again (what was applied is absorbed).
 */
public final class IdempotentBatchListener implements BatchMessageListener<String, byte[]> {

  private static final Logger log = LoggerFactory.getLogger(IdempotentBatchListener.class);

  private final BatchProcessor processor;

  public IdempotentBatchListener(BatchProcessor processor) {
    this.processor = processor;
  }

  @Override
  public void onMessage(List<ConsumerRecord<String, byte[]>> records) {
    try {
      processor.process(records);
    } catch (BatchProcessor.BatchIncompleteException e) {
      if (e.transientFailure()) {
        // The container's error handler retries without logging; a refused dead letter was
        // already logged at ERROR.
        log.warn(
            "{}: batch from {} not done ({}); backing off and retrying it",
            processor.settings().operation(),
            positions(e.resumeAt()),
            e.getMessage());
      }
      throw new IllegalStateException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while processing a batch", e);
    }
  }

  public BatchProcessor processor() {
    return processor;
  }

  private static String positions(Map<TopicPartition, Long> resumeAt) {
    return resumeAt.entrySet().stream()
        .map(entry -> entry.getKey() + "@" + entry.getValue())
        .sorted()
        .collect(Collectors.joining(", "));
  }
}
