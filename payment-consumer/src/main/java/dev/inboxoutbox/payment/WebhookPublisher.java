package dev.inboxoutbox.payment;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes verified webhooks to {@code payments.webhooks} and waits for the acknowledgement: the
 * endpoint may only answer 200 (and stop the provider's retries) once Kafka holds the event.
 */
final class WebhookPublisher implements AutoCloseable {

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;
  private final Duration ackTimeout;

  /** Thrown when Kafka did not acknowledge in time; the provider will retry the webhook. */
  static final class NotAcknowledgedException extends Exception {
    private static final long serialVersionUID = 1L;

    NotAcknowledgedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  WebhookPublisher(Map<String, Object> producerProperties, String topic, Duration ackTimeout) {
    Map<String, Object> properties = new HashMap<>(producerProperties);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, "payment-webhook-endpoint");
    // Give up within the endpoint's wait, so a stuck send ends as a 503 rather than a late success.
    int timeoutMillis = (int) ackTimeout.toMillis();
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMillis);
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMillis);
    properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMillis, 30_000));
    properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer =
        new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
    this.topic = topic;
    this.ackTimeout = ackTimeout;
  }

  /**
   * Thrown when Kafka can never take the event (larger than a request or than the topic allows):
   * retrying the webhook cannot help.
   */
  static final class TooLargeException extends Exception {
    private static final long serialVersionUID = 1L;

    TooLargeException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Sends the event keyed by payment, with its id as the idempotency key; returns once
   * acknowledged.
   */
  void publish(String paymentId, String eventId, String eventType, byte[] body)
      throws NotAcknowledgedException, TooLargeException, InterruptedException {
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, paymentId, body);
    record.headers().add("Idempotency-Key", eventId.getBytes(StandardCharsets.UTF_8));
    record.headers().add("type", eventType.getBytes(StandardCharsets.UTF_8));
    try {
      producer.send(record).get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RecordTooLargeException) {
        throw new TooLargeException(
            "Kafka cannot take webhook " + eventId + ": " + e.getCause().getMessage(),
            e.getCause());
      }
      throw new NotAcknowledgedException(
          "Kafka refused webhook " + eventId + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new NotAcknowledgedException(
          "Kafka did not acknowledge webhook " + eventId + " within " + ackTimeout, e);
    } catch (RuntimeException e) {
      // send() itself throws when metadata cannot be fetched in max.block.ms.
      throw new NotAcknowledgedException("could not send webhook " + eventId + ": " + e, e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
