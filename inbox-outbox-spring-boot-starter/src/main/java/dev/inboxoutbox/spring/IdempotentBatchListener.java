package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.BatchProcessor;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.listener.BatchMessageListener;

/**
 * A spring-kafka batch listener over a {@link BatchProcessor}. Use it in a container with {@code
 * AckMode.BATCH}: the container commits the offsets after {@code onMessage} returns, that is after
 * the database commit and the dead letters. A batch that cannot be finished (a failing database, a
 * dead letter Kafka does not take) is thrown, so the container's error handler backs off and hands
 * the same batch again (what was applied is absorbed).
 */
public final class IdempotentBatchListener implements BatchMessageListener<String, byte[]> {

  private final BatchProcessor processor;

  public IdempotentBatchListener(BatchProcessor processor) {
    this.processor = processor;
  }

  @Override
  public void onMessage(List<ConsumerRecord<String, byte[]>> records) {
    try {
      processor.process(records);
    } catch (BatchProcessor.BatchIncompleteException e) {
      throw new IllegalStateException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while processing a batch", e);
    }
  }

  public BatchProcessor processor() {
    return processor;
  }
}
