package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.FreePorts;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code iox up} as a person uses it: started as its own process, then {@code iox produce}, an
 * order over HTTP and {@code iox inspect} from other processes, and a SIGTERM (what Ctrl-C sends
 * through a terminal's process group is SIGINT; both run the same shutdown) stops everything.
 */
class IoxUpIT {

  @Test
  void upStartsEverythingThatProduceInspectAndHttpUseAndStopsItAll() throws Exception {
    int postgres = FreePorts.belowEphemeralRange();
    int kafka = FreePorts.belowEphemeralRange();
    int orders = FreePorts.belowEphemeralRange();
    int payments = FreePorts.belowEphemeralRange();
    int provider = FreePorts.belowEphemeralRange();
    try (IoxProcess up = startUp(postgres, kafka, orders, payments, provider)) {
      await("iox up printed where everything is")
          .atMost(Duration.ofMinutes(5))
          .until(() -> up.output().contains("Ctrl-C stops everything.") || !up.isAlive());
      assertThat(up.isAlive()).as(up.printed()).isTrue();
      String bootstrap = "localhost:" + kafka;
      String ordersDatabase = "jdbc:postgresql://localhost:" + postgres + "/order_consumer";
      assertThat(up.printed())
          .contains("http://localhost:" + orders)
          .contains("./iox produce --bootstrap " + bootstrap)
          .contains("./iox inspect --jdbc-url " + ordersDatabase);

      assertThat(
              IoxProcess.run("produce", "--bootstrap", bootstrap, "--count", "20", "--rate", "0"))
          .contains("20 orders")
          .contains("all acknowledged");
      HttpResponse<String> placed =
          OrderRequests.placeOrder(orders, UUID.randomUUID().toString(), null);
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
      // 20 Kafka orders and one over HTTP, each paid or failed through the provider and relayed
      // back.
      await("orders placed and settled, seen by iox inspect")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(2))
          .until(
              () -> IoxProcess.run("inspect", "--jdbc-url", ordersDatabase, "--json"),
              inspect -> inspect.contains("order-payments") && inspect.contains("OrderPaid"));

      List<String> stopping = up.terminate(Duration.ofSeconds(90));

      assertThat(stopping).as("iox up stopped on SIGTERM").isNotNull();
      Map<String, Integer> ports =
          Map.of(
              "PostgreSQL", postgres,
              "Kafka", kafka,
              "order-consumer", orders,
              "payment-consumer", payments,
              "payment provider", provider);
      ports.forEach(
          (what, port) ->
              assertThat(IoxProcess.listening(port))
                  .as("%s's port %d closed", what, port)
                  .isFalse());
      // Everything is stopped in order before the JVM exits: no broker writing into a directory
      // already deleted, no pg_ctl stop killed half-way.
      assertThat(stopping)
          .as(String.join("\n", stopping))
          .contains("stopped.")
          .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
    }
  }

  @Test
  void aStopWhileStartingStopsWhatHadStartedAsCleanly() throws Exception {
    int postgres = FreePorts.belowEphemeralRange();
    int kafka = FreePorts.belowEphemeralRange();
    try (IoxProcess up =
        startUp(
            postgres,
            kafka,
            FreePorts.belowEphemeralRange(),
            FreePorts.belowEphemeralRange(),
            FreePorts.belowEphemeralRange())) {
      await("the dev stack up, the services starting")
          .atMost(Duration.ofMinutes(5))
          .until(
              () ->
                  up.output().contains("starting order-consumer and payment-consumer...")
                      || !up.isAlive());

      List<String> stopping = up.terminate(Duration.ofSeconds(90));

      assertThat(stopping).as("iox up stopped on SIGTERM").isNotNull();
      assertThat(stopping)
          .as(String.join("\n", stopping))
          .contains("stopped.")
          .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
      assertThat(IoxProcess.listening(postgres)).as("PostgreSQL's port closed").isFalse();
      assertThat(IoxProcess.listening(kafka)).as("Kafka's port closed").isFalse();
    }
  }

  private static IoxProcess startUp(int postgres, int kafka, int orders, int payments, int provider)
      throws IOException {
    return IoxProcess.start(
        "up",
        "--postgres-port=" + postgres,
        "--kafka-port=" + kafka,
        "--order-port=" + orders,
        "--payment-port=" + payments,
        "--provider-port=" + provider,
        "--repo=" + Repository.ROOT,
        "--reports=" + Files.createTempDirectory("iox-up-reports"));
  }
}
