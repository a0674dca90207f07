package dev.inboxoutbox.devstack;

import java.util.HashMap;
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
    Map<String, String> properties = new HashMap<>();
    properties.put("auto.create.topics.enable", "true");
    properties.put("num.partitions", "3");
    properties.put("offsets.topic.num.partitions", "5");
    properties.put("group.initial.rebalance.delay.ms", "0");
    properties.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
    if (settings.kafkaPort() > 0) {
      // The KRaft broker ignores kafkaPorts(); the listener list is what fixes the port.
      properties.put(
          "listeners", "EXTERNAL://localhost:" + settings.kafkaPort() + ",CONTROLLER://localhost:0");
    }
    broker.brokerProperties(properties);
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
