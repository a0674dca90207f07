package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** A real single-node KRaft broker (combined broker and controller) inside this JVM. */
final class EmbeddedKafkaServer implements KafkaServer {

  /**
   * Where spring-kafka-test's broker publishes its address on start. Left there, Spring would take
   * it for the application's own setting (a system property outranks application.yml), pointing the
   * application at the broker's internal listener instead of the port asked of the stack, and
   * overwriting what the user set; the stack hands its address out through {@link
   * #bootstrapServers()} instead.
   */
  private static final List<String> PUBLISHED_PROPERTIES =
      List.of("spring.kafka.bootstrap-servers", "spring.embedded.kafka.brokers");

  private final EmbeddedKafkaKraftBroker broker;
  private final String bootstrapServers;

  private EmbeddedKafkaServer(EmbeddedKafkaKraftBroker broker, String bootstrapServers) {
    this.broker = broker;
    this.bootstrapServers = bootstrapServers;
  }

  static EmbeddedKafkaServer start(DevStackSettings settings) {
    EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
    Map<String, String> properties = new HashMap<>();
    properties.put("auto.create.topics.enable", "true");
    properties.put("num.partitions", "3");
    properties.put("offsets.topic.num.partitions", "5");
    properties.putAll(ConsumerGroupTimings.BROKER_SETTINGS);
    properties.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
    int port = settings.kafkaPort();
    if (port > 0) {
      requireFree(port);
      // kafkaPorts() is ignored by the KRaft broker, and so is a port given to the test kit's own
      // EXTERNAL listener: KafkaClusterTestKit pre-binds EXTERNAL and CONTROLLER to random ports
      // and hands those sockets over whatever `listeners` says, while the broker reports the
      // configured port. A listener the test kit does not know is bound where it is configured.
      properties.put(
          "listeners", "EXTERNAL://localhost:0,CONTROLLER://localhost:0,HOST://localhost:" + port);
      properties.put(
          "listener.security.protocol.map",
          "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,HOST:PLAINTEXT");
    }
    broker.brokerProperties(properties);
    Map<String, String> published = systemProperties(PUBLISHED_PROPERTIES);
    try {
      broker.afterPropertiesSet();
    } catch (RuntimeException e) {
      throw new DevStackException(
          "cannot start the in-JVM Kafka broker" + (port > 0 ? " on port " + port : ""), e);
    } finally {
      restore(published);
    }
    return new EmbeddedKafkaServer(
        broker, port > 0 ? "localhost:" + port : broker.getBrokersAsString());
  }

  private static Map<String, String> systemProperties(List<String> names) {
    Map<String, String> values = new HashMap<>();
    for (String name : names) {
      values.put(name, System.getProperty(name));
    }
    return values;
  }

  private static void restore(Map<String, String> values) {
    values.forEach(
        (name, value) -> {
          if (value == null) {
            System.clearProperty(name);
          } else {
            System.setProperty(name, value);
          }
        });
  }

  /**
   * A taken port otherwise surfaces only after the broker started, failed and was retried three
   * times, buried in its log.
   */
  private static void requireFree(int port) {
    try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName("localhost"))) {
      // only a probe: closed again at once so the broker can bind the port
    } catch (IOException e) {
      throw new DevStackException(
          "cannot start the in-JVM Kafka broker: port " + port + " is already in use", e);
    }
  }

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
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
