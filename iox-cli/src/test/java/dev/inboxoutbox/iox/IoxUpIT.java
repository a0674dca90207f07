package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code iox up} as a person uses it: started as its own process, then {@code iox produce}, an
 * order over HTTP and {@code iox inspect} from other processes, and a SIGTERM (what Ctrl-C sends
 * through a terminal's process group is SIGINT; both run the same shutdown) stops everything.
 */
class IoxUpIT {

  private static final Path REPO =
      Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "..")).toAbsolutePath().normalize();

  private final List<String> output = new CopyOnWriteArrayList<>();
  private Process up;

  @AfterEach
  void stop() throws InterruptedException {
    if (up != null && up.isAlive()) {
      up.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void upStartsEverythingThatProduceInspectAndHttpUseAndStopsItAll() throws Exception {
    int postgres = FreePorts.belowEphemeralRange();
    int kafka = FreePorts.belowEphemeralRange();
    int orders = FreePorts.belowEphemeralRange();
    int payments = FreePorts.belowEphemeralRange();
    int provider = FreePorts.belowEphemeralRange();
    up =
        iox(
                "up",
                "--postgres-port=" + postgres,
                "--kafka-port=" + kafka,
                "--order-port=" + orders,
                "--payment-port=" + payments,
                "--provider-port=" + provider,
                "--repo=" + REPO,
                "--reports=" + Files.createTempDirectory("iox-up-reports"))
            .start();
    Thread reader = new Thread(() -> readLines(up, output), "iox-up-output");
    reader.setDaemon(true);
    reader.start();
    await("iox up printed where everything is")
        .atMost(Duration.ofMinutes(5))
        .until(() -> output.contains("Ctrl-C stops everything.") || !up.isAlive());
    assertThat(up.isAlive()).as(String.join("\n", output)).isTrue();
    String bootstrap = "localhost:" + kafka;
    String ordersDatabase = "jdbc:postgresql://localhost:" + postgres + "/order_consumer";
    assertThat(String.join("\n", output))
        .contains("http://localhost:" + orders)
        .contains("./iox produce --bootstrap " + bootstrap)
        .contains("./iox inspect --jdbc-url " + ordersDatabase);

    assertThat(run("produce", "--bootstrap", bootstrap, "--count", "20", "--rate", "0"))
        .contains("20 orders")
        .contains("all acknowledged");
    HttpResponse<String> placed =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + orders + "/orders"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"customerId\":\"c-1\",\"items\":[{\"sku\":\"SKU-01\",\"qty\":1,"
                                + "\"unitPriceCents\":1250}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
    // 20 Kafka orders and one over HTTP, each paid or failed through the provider and relayed back.
    await("orders placed and settled, seen by iox inspect")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> run("inspect", "--jdbc-url", ordersDatabase, "--json"),
            inspect -> inspect.contains("order-payments") && inspect.contains("OrderPaid"));

    int linesBeforeStop = output.size();
    // SIGTERM through the handle: Process.destroy() would also close the pipe the stop is read
    // from.
    up.toHandle().destroy();
    assertThat(up.waitFor(90, TimeUnit.SECONDS)).as("iox up stopped on SIGTERM").isTrue();
    reader.join(Duration.ofSeconds(10).toMillis());
    Map<String, Integer> ports =
        Map.of(
            "PostgreSQL", postgres,
            "Kafka", kafka,
            "order-consumer", orders,
            "payment-consumer", payments,
            "payment provider", provider);
    ports.forEach(
        (what, port) ->
            assertThat(listening(port)).as("%s's port %d closed", what, port).isFalse());
    // Everything is stopped in order before the JVM exits: no broker writing into a directory
    // already deleted, no service instance restarted behind the stop.
    List<String> stopping = output.subList(linesBeforeStop, output.size());
    assertThat(stopping)
        .as(String.join("\n", stopping))
        .contains("stopped.")
        .noneMatch(line -> line.contains("ERROR") || line.contains("Exception"));
  }

  private static ProcessBuilder iox(String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Iox.class.getName());
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command).redirectErrorStream(true);
  }

  private static String run(String... arguments) throws IOException, InterruptedException {
    Process process = iox(arguments).start();
    String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor(2, TimeUnit.MINUTES);
    return text;
  }

  private static void readLines(Process process, List<String> into) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        into.add(line);
      }
    } catch (IOException ended) {
      // the process is gone
    }
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket("localhost", port)) {
      return true;
    } catch (IOException closed) {
      return false;
    }
  }
}
