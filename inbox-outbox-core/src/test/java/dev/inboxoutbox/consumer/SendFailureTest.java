package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class SendFailureTest {

  @Test
  void sizeLimitsAreTooLargeWhetherTheClientOrTheBrokerRefuses() {
    assertThat(SendFailure.of(new RecordTooLargeException("max.request.size")))
        .isEqualTo(SendFailure.TOO_LARGE);
    assertThat(SendFailure.of(new RecordBatchTooLargeException("batch")))
        .isEqualTo(SendFailure.TOO_LARGE);
  }

  @Test
  void brokersAwayLeadersMovingAndTimeoutsAreRetriable() {
    assertThat(SendFailure.of(new TimeoutException("delivery.timeout.ms")))
        .isEqualTo(SendFailure.RETRIABLE);
    assertThat(SendFailure.of(new NetworkException("disconnected")))
        .isEqualTo(SendFailure.RETRIABLE);
    assertThat(SendFailure.of(new NotLeaderOrFollowerException("moved")))
        .isEqualTo(SendFailure.RETRIABLE);
    assertThat(SendFailure.of(new NotEnoughReplicasException("isr")))
        .isEqualTo(SendFailure.RETRIABLE);
  }

  @Test
  void failuresNoRetryFixesArePermanent() {
    assertThat(SendFailure.of(new TopicAuthorizationException("denied")))
        .isEqualTo(SendFailure.PERMANENT);
    assertThat(SendFailure.of(new InvalidTopicException("bad name")))
        .isEqualTo(SendFailure.PERMANENT);
    assertThat(SendFailure.of(new SerializationException("cannot")))
        .isEqualTo(SendFailure.PERMANENT);
    assertThat(SendFailure.of(new KafkaException("producer in a fatal state")))
        .isEqualTo(SendFailure.PERMANENT);
    assertThat(SendFailure.of(new IllegalStateException("producer closed")))
        .isEqualTo(SendFailure.PERMANENT);
  }

  @Test
  void aWrappedCauseIsClassifiedByWhatItWraps() {
    assertThat(SendFailure.of(new ExecutionException(new TimeoutException("late"))))
        .isEqualTo(SendFailure.RETRIABLE);
    assertThat(SendFailure.of(new KafkaException("wrapped", new RecordTooLargeException("big"))))
        .isEqualTo(SendFailure.TOO_LARGE);
  }
}
