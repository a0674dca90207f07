package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A Kafka client reaches a broker through the proxy only when the broker advertises the proxy's
 * address on its client listener: then it sees each fault and recovers. This is how network faults
 * between the services and a broker of a cluster are injected, one proxy per broker.
 */
class KafkaThroughProxyIT {

  private static EmbeddedKafkaKraftBroker broker;
  private static TcpProxy proxy;

  @BeforeAll
  static void startBrokerAdvertisingTheProxy() throws Exception {
    int clientPort = freePort();
    proxy = new TcpProxy("kafka-1", new InetSocketAddress("127.0.0.1", clientPort));
    broker = new EmbeddedKafkaKraftBroker(1, 1);
    broker.brokerProperties(
        Map.of(
            "listeners",
            "EXTERNAL://localhost:0,CONTROLLER://localhost:0,PROXIED://127.0.0.1:" + clientPort,
            "listener.security.protocol.map",
            "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT",
            "advertised.listeners",
            "EXTERNAL://localhost:0,PROXIED://" + proxy.hostAndPort(),
            "auto.create.topics.enable",
            "true"));
    broker.afterPropertiesSet();
  }

  @AfterAll
  static void stop() throws Exception {
    broker.destroy();
    proxy.close();
  }

  @Test
  void aProducerThroughTheProxyWaitsOutABlackHoleAndRecoversFromAReset() throws Exception {
    try (KafkaProducer<String, String> producer = producer()) {
      assertThat(send(producer, "before").get(30, TimeUnit.SECONDS).offset()).isNotNegative();
      assertThat(proxy.openConnections())
          .as("the client's connections go through the proxy")
          .isPositive();

      proxy.openBlackHole();
      Future<RecordMetadata> held = send(producer, "during the black hole");
      assertThatThrownBy(() -> held.get(1500, TimeUnit.MILLISECONDS))
          .isInstanceOf(TimeoutException.class);
      proxy.closeBlackHole();
      assertThat(held.get(30, TimeUnit.SECONDS).offset()).isNotNegative();

      assertThat(proxy.resetConnections()).isPositive();
      assertThat(send(producer, "after the reset").get(30, TimeUnit.SECONDS).offset())
          .isNotNegative();
    }
  }

  private static Future<RecordMetadata> send(KafkaProducer<String, String> producer, String value) {
    return producer.send(new ProducerRecord<>("through-proxy", "key", value));
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.hostAndPort(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000",
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000"),
        new StringSerializer(),
        new StringSerializer());
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
