package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** How the service starts: what it needs, and what it serves from its first request. */
@ExtendWith(OutputCaptureExtension.class)
class OrderConsumerStartupIT {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theFirstRequestOnAFreshDatabaseIsRelayed() throws Exception {
    int port = freePort();
    String topicPrefix = "startup-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    try (Database database = DevStack.shared().postgres().createDatabase()) {
      CompletableFuture<ConfigurableApplicationContext> app =
          CompletableFuture.supplyAsync(
              () ->
                  new SpringApplicationBuilder(OrderConsumerApplication.class)
                      .run(
                          "--server.port=" + port,
                          "--spring.datasource.url=" + database.jdbcUrl(),
                          "--spring.datasource.username=" + database.username(),
                          "--spring.datasource.password=" + database.password(),
                          "--spring.kafka.bootstrap-servers="
                              + DevStack.shared().kafka().bootstrapServers(),
                          "--inbox-outbox.relay.slot-name=iox_startup_" + port,
                          "--inbox-outbox.relay.topic-replacement="
                              + topicPrefix
                              + "outbox.event.${routedByValue}"));
      try {
        // The first request that the web server accepts, sent the moment it listens.
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = firstAcceptedPost(port, key);
        assertThat(first.statusCode()).isEqualTo(201);
        String orderId = first.body().replaceAll(".*\"orderId\":\"([^\"]+)\".*", "$1");

        try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(
                Map.of(
                    "bootstrap.servers",
                    DevStack.shared().kafka().bootstrapServers(),
                    "group.id",
                    "startup-" + port,
                    "auto.offset.reset",
                    "earliest"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
          consumer.subscribe(List.of(topicPrefix + "outbox.event.payment"));
          List<ConsumerRecord<String, byte[]>> seen = new java.util.ArrayList<>();
          await("the first order's PaymentRequested relayed")
              .atMost(Duration.ofSeconds(60))
              .until(
                  () -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                    return seen.stream().anyMatch(r -> orderId.equals(r.key()));
                  });
        }
      } finally {
        app.join().close();
      }
    }
  }

  @Test
  void withoutADatasourceTheServiceFailsAtStartNamingWhatIsMissing(CapturedOutput output) {
    // As from the executable jar, which has no dev stack to fall back on.
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(OrderConsumerApplication.class)
                    .run("--server.port=0", "--iox.dev-stack.enabled=false")
                    .close())
        .isInstanceOf(RuntimeException.class);
    assertThat(output)
        .contains("Failed to configure a DataSource: 'url' attribute is not specified");
  }

  private HttpResponse<String> firstAcceptedPost(int port, String key) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"customerId\":\"first\",\"items\":[{\"sku\":\"SKU-01\",\"qty\":1,\"unitPriceCents\":100}]}"))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      try {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (java.net.ConnectException notListeningYet) {
        if (System.nanoTime() > deadline) {
          throw notListeningYet;
        }
        Thread.sleep(5);
      }
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
