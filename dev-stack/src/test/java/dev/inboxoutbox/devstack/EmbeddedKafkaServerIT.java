package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaServerIT {

  @Test
  void clientsReachTheBrokerOnTheConfiguredPort() throws Exception {
    int port = freePort();
    try (EmbeddedKafkaServer kafka =
        EmbeddedKafkaServer.start(DevStackSettings.fromEnvironment().withKafkaPort(port))) {
      assertThat(kafka.bootstrapServers()).isEqualTo("localhost:" + port);
      String topic = "fixed-port-" + UUID.randomUUID();
      // Only the configured address: the client must not learn the broker from anywhere else.
      Map<String, Object> config =
          Map.of(
              AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port,
              AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
              AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      try (Admin admin = Admin.create(config)) {
        admin
            .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
            .all()
            .get(20, TimeUnit.SECONDS);
        assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS)).contains(topic);
      }
    }
  }

  @Test
  void theBrokerLeavesSpringsBootstrapServersPropertyAlone() {
    // spring-kafka-test's broker publishes its address there; Spring would then take it for the
    // application's own setting, and a port asked of the dev stack would go unused.
    String before = System.clearProperty("spring.kafka.bootstrap-servers");
    try (EmbeddedKafkaServer kafka =
        EmbeddedKafkaServer.start(DevStackSettings.fromEnvironment())) {
      assertThat(System.getProperty("spring.kafka.bootstrap-servers")).isNull();
    } finally {
      if (before != null) {
        System.setProperty("spring.kafka.bootstrap-servers", before);
      }
    }
  }

  @Test
  void startFailsNamingThePortWhenItIsTaken() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("localhost"))) {
      int port = taken.getLocalPort();
      DevStackSettings settings = DevStackSettings.fromEnvironment().withKafkaPort(port);

      assertThatThrownBy(() -> EmbeddedKafkaServer.start(settings).close())
          .isInstanceOf(DevStackException.class)
          .hasMessageContaining(String.valueOf(port));
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
