package dev.inboxoutbox.devstack;

import java.util.Map;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** A real single-node KRaft broker (combined broker and controller) inside this JVM. */
final class EmbeddedKafkaServer implements KafkaServer {

  private final EmbeddedKafkaKraftBroker broker;

  private EmbeddedKafkaServer(EmbeddedKafkaKraftBroker broker) {
    this.broker = broker;
  }

  static EmbeddedKafkaServer start(DevStackSettings settings) {
    EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
    broker.brokerProperties(
        Map.of(
            "auto.create.topics.enable", "true",
            "num.partitions", "3",
            "offsets.topic.num.partitions", "5",
            "group.initial.rebalance.delay.ms", "0",
            "log.flush.interval.messages", String.valueOf(Long.MAX_VALUE)));
    if (settings.kafkaPort() > 0) {
      broker.kafkaPorts(settings.kafkaPort());
    }
    try {
      broker.afterPropertiesSet();
    } catch (RuntimeException e) {
      throw new DevStackException("cannot start the in-JVM Kafka broker", e);
    }
    return new EmbeddedKafkaServer(broker);
  }

  @Override
  public String bootstrapServers() {
    return broker.getBrokersAsString();
  }

  @Override
  public String description() {
    return "in-JVM KRaft Kafka at " + bootstrapServers();
  }

  @Override
  public void close() {
    broker.destroy();
  }
}
