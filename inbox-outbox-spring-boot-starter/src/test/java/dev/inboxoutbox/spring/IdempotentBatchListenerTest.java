package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import java.sql.SQLTransactionRollbackException;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class IdempotentBatchListenerTest {

  /**
   * The container's error handler retries a batch the database rolled back without a word: a
   * deadlock between batches, repeated every second, showed nowhere but in a counter.
   */
  @Test
  void aBatchRolledBackByATransientDatabaseFailureIsLoggedWithItsCauseAndRetried(
      CapturedOutput output) {
    TransactionRunner deadlocking =
        new TransactionRunner() {
          @Override
          public <T> T inTransaction(Work<T> work) throws Exception {
            throw new SQLTransactionRollbackException("ERROR: deadlock detected", "40P01");
          }
        };
    BatchProcessor processor =
        BatchProcessor.builder("listener-test")
            .transactions(deadlocking)
            .handler((message, context) -> Outcome.success())
            .deadLetterProducer(
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()))
            .build();
    IdempotentBatchListener listener = new IdempotentBatchListener(processor);

    assertThatThrownBy(
            () ->
                listener.onMessage(
                    List.of(
                        RecordBuilder.to("orders")
                            .idempotencyKey("k-1")
                            .json("{}")
                            .consumed(2, 40))))
        .isInstanceOf(IllegalStateException.class);

    assertThat(output)
        .contains("WARN")
        .contains("listener-test")
        .contains("deadlock detected")
        .contains("orders-2@40");
  }
}
