package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.OperatorError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A dead-letter topic read from the beginning to its current end without a consumer group (nothing
 * is committed, so reading never moves anyone's position), and re-drive to the original topics.
 */
final class DeadLetterTopic {

  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  private final String bootstrap;
  private final String topic;

  DeadLetterTopic(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  /** Every dead letter now in the topic that {@code selected} accepts, by partition and offset. */
  List<DeadLetter> read(Predicate<DeadLetter> selected) {
    try {
      return readFromKafka(selected);
    } catch (KafkaException e) {
      throw new DeadLetterTopicException("cannot read " + topic + " on " + bootstrap + ": " + e, e);
    }
  }

  private List<DeadLetter> readFromKafka(Predicate<DeadLetter> selected) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false",
                ConsumerConfig.CLIENT_ID_CONFIG, "iox-dlt",
                // An unreachable broker fails the command in seconds, not after a minute.
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic);
      if (partitions == null || partitions.isEmpty()) {
        throw new DeadLetterTopicException("no topic " + topic + " on " + bootstrap);
      }
      List<TopicPartition> assigned =
          partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      Map<TopicPartition, Long> end = consumer.endOffsets(assigned);
      List<DeadLetter> found = new ArrayList<>();
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (!reachedEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new DeadLetterTopicException(
              "could not read " + topic + " to its end within " + READ_TIMEOUT.toSeconds() + " s");
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
          DeadLetter deadLetter = new DeadLetter(record);
          if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))
              && selected.test(deadLetter)) {
            found.add(deadLetter);
          }
        }
      }
      found.sort(
          (a, b) ->
              a.record().partition() != b.record().partition()
                  ? Integer.compare(a.record().partition(), b.record().partition())
                  : Long.compare(a.record().offset(), b.record().offset()));
      return found;
    }
  }

  Optional<DeadLetter> at(int partition, long offset) {
    return read(d -> d.record().partition() == partition && d.record().offset() == offset).stream()
        .findFirst();
  }

  private static boolean reachedEnd(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
      if (consumer.position(partition.getKey()) < partition.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Sends each dead letter's original record (key, value, headers, plus {@link
   * DeadLetter#REDRIVEN_FROM}) to its original topic and waits until Kafka has taken all of them.
   * The partition follows from the key, as for the original producer.
   */
  List<RecordMetadata> redrive(List<DeadLetter> deadLetters) {
    try {
      return redriveToKafka(deadLetters);
    } catch (KafkaException e) {
      throw new DeadLetterTopicException("cannot re-drive to " + bootstrap + ": " + e, e);
    }
  }

  private List<RecordMetadata> redriveToKafka(List<DeadLetter> deadLetters) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.CLIENT_ID_CONFIG, "iox-dlt-redrive",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (DeadLetter deadLetter : deadLetters) {
        List<Header> headers = new ArrayList<>(deadLetter.originalHeaders());
        headers.add(
            new RecordHeader(
                DeadLetter.REDRIVEN_FROM, deadLetter.reference().getBytes(StandardCharsets.UTF_8)));
        acks.add(
            producer.send(
                new ProducerRecord<>(
                    deadLetter.originalTopic(),
                    null,
                    deadLetter.record().key(),
                    deadLetter.record().value(),
                    headers)));
      }
      List<RecordMetadata> sent = new ArrayList<>();
      for (int i = 0; i < acks.size(); i++) {
        try {
          sent.add(acks.get(i).get());
        } catch (ExecutionException e) {
          throw new DeadLetterTopicException(
              "Kafka did not take the re-drive of "
                  + deadLetters.get(i).reference()
                  + " to "
                  + deadLetters.get(i).originalTopic()
                  + " ("
                  + i
                  + " of "
                  + acks.size()
                  + " were taken before it): "
                  + e.getCause(),
              e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new DeadLetterTopicException("interrupted while re-driving", e);
        }
      }
      return sent;
    }
  }

  /** Reading or re-driving failed, with the reason for the operator. */
  static final class DeadLetterTopicException extends OperatorError {
    private static final long serialVersionUID = 1L;

    DeadLetterTopicException(String message) {
      super(message);
    }

    DeadLetterTopicException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
