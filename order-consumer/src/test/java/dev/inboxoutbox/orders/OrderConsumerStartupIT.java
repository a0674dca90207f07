package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
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

        try (TopicReader payments = new TopicReader(topicPrefix + "outbox.event.payment")) {
          payments.readUntil(
              records -> records.stream().anyMatch(r -> orderId.equals(r.key())),
              Duration.ofSeconds(60));
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
    // Sent the moment the web server listens: until then, the connection is refused.
    return await("the web server accepting the first request")
        .atMost(Duration.ofSeconds(120))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5))
        .ignoreExceptionsInstanceOf(ConnectException.class)
        .until(() -> http.send(request, HttpResponse.BodyHandlers.ofString()), response -> true);
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
