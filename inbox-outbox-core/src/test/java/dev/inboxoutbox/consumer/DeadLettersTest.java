package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

  private static final int LIMIT = 1000;

  @Test
  void aValueOverTheLimitIsSentAgainWithoutItWithEveryHeaderAndTheOriginalKey() throws Exception {
    RefusingProducer producer = new RefusingProducer(DeadLettersTest::overLimit);
    DeadLetters deadLetters = new DeadLetters(producer, ".DLT", "order-consumer");
    DeadLetters.Entry big = entry(5, new byte[LIMIT + 1]);
    DeadLetters.Entry small = entry(6, "{\"qty\":".getBytes(StandardCharsets.UTF_8));

    List<DeadLetters.Entry> withoutValue = deadLetters.publish(List.of(big, small));

    assertThat(withoutValue).containsExactly(big);
    assertThat(producer.history()).hasSize(2);
    ProducerRecord<String, byte[]> sentSmall = producer.history().get(0);
    assertThat(sentSmall.value()).isEqualTo(small.record().value());
    assertThat(sentSmall.headers().lastHeader(DeadLetters.VALUE_OMITTED_BYTES)).isNull();
    ProducerRecord<String, byte[]> sentBig = producer.history().get(1);
    assertThat(sentBig.topic()).isEqualTo("orders.DLT");
    assertThat(sentBig.key()).isEqualTo("c-1");
    assertThat(sentBig.value()).isNull();
    assertThat(header(sentBig, DeadLetters.VALUE_OMITTED_BYTES))
        .isEqualTo(String.valueOf(LIMIT + 1));
    assertThat(header(sentBig, DeadLetters.REASON)).isEqualTo("OVERSIZE");
    assertThat(header(sentBig, DeadLetters.DETAIL)).contains("too big").contains("value left out");
    assertThat(header(sentBig, DeadLetters.ORIGINAL_TOPIC)).isEqualTo("orders");
    assertThat(header(sentBig, DeadLetters.ORIGINAL_PARTITION)).isEqualTo("2");
    assertThat(header(sentBig, DeadLetters.ORIGINAL_OFFSET)).isEqualTo("5");
    assertThat(header(sentBig, DeadLetters.IDEMPOTENCY_KEY)).isEqualTo("key-5");
    assertThat(header(sentBig, "traceparent")).isEqualTo("00-trace");
  }

  @Test
  void aDeadLetterTooLargeEvenWithoutItsValueIsPermanent() {
    DeadLetters deadLetters =
        new DeadLetters(
            new RefusingProducer(record -> new RecordTooLargeException("headers too big")),
            ".DLT",
            "c");

    assertThatThrownBy(() -> deadLetters.publish(List.of(entry(5, new byte[10]))))
        .isInstanceOfSatisfying(
            DeadLetterSendException.class,
            e -> assertThat(e.failure()).isEqualTo(SendFailure.PERMANENT))
        .hasMessageContaining("without its value");
  }

  @Test
  void aTimeoutIsRetriableAndAnAuthorizationFailureIsPermanent() {
    DeadLetters timingOut =
        new DeadLetters(new RefusingProducer(record -> new TimeoutException("late")), ".DLT", "c");
    DeadLetters denied =
        new DeadLetters(
            new RefusingProducer(record -> new TopicAuthorizationException("denied")), ".DLT", "c");

    assertThatThrownBy(() -> timingOut.publish(List.of(entry(1, new byte[10]))))
        .isInstanceOfSatisfying(
            DeadLetterSendException.class,
            e -> assertThat(e.failure()).isEqualTo(SendFailure.RETRIABLE));
    assertThatThrownBy(() -> denied.publish(List.of(entry(1, new byte[10]))))
        .isInstanceOfSatisfying(
            DeadLetterSendException.class,
            e -> assertThat(e.failure()).isEqualTo(SendFailure.PERMANENT))
        .hasMessageContaining("orders-2@1");
  }

  @Test
  void aProducerThatThrowsInsteadOfFailingTheSendIsAFailureToo() {
    MockProducer<String, byte[]> closed =
        new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    closed.close();
    DeadLetters deadLetters = new DeadLetters(closed, ".DLT", "c");

    assertThatThrownBy(() -> deadLetters.publish(List.of(entry(1, new byte[10]))))
        .isInstanceOfSatisfying(
            DeadLetterSendException.class,
            e -> assertThat(e.failure()).isEqualTo(SendFailure.PERMANENT));
  }

  private static RuntimeException overLimit(ProducerRecord<String, byte[]> record) {
    return record.value() != null && record.value().length > LIMIT
        ? new RecordTooLargeException("larger than max.request.size")
        : null;
  }

  private static DeadLetters.Entry entry(long offset, byte[] value) {
    ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("orders", 2, offset, "c-1", value);
    record.headers().add("traceparent", "00-trace".getBytes(StandardCharsets.UTF_8));
    return new DeadLetters.Entry(
        record, DeadLetterReason.OVERSIZE, "too big", "key-" + offset, null);
  }

  private static String header(ProducerRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  /**
   * Completes every send at once; fails the ones {@code refusal} returns an exception for, like
   * Kafka would.
   */
  private static final class RefusingProducer extends MockProducer<String, byte[]> {
    private final Function<ProducerRecord<String, byte[]>, RuntimeException> refusal;

    RefusingProducer(Function<ProducerRecord<String, byte[]>, RuntimeException> refusal) {
      super(true, null, new StringSerializer(), new ByteArraySerializer());
      this.refusal = refusal;
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<String, byte[]> record, Callback callback) {
      RuntimeException refused = refusal.apply(record);
      return refused == null
          ? super.send(record, callback)
          : CompletableFuture.failedFuture(refused);
    }
  }
}
