package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.FreePorts;
import dev.inboxoutbox.iox.OtlpReceiver.Span;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code iox up} as a person uses it with a collector: started as its own process, then {@code iox
 * produce}, orders over HTTP and {@code iox inspect} from other processes, and a SIGTERM (what
 * Ctrl-C sends through a terminal's process group is SIGINT; both run the same shutdown) stops
 * everything. Meanwhile one order's trace crosses both services: the client's {@code POST /orders},
 * order-consumer's outbox and relay, payment-consumer's claim of the payment request, its charge,
 * the provider's webhook, its outbox, and order-consumer's claim of the payment result, every span
 * under the client's trace id; the client's retry of the request and a command delivered twice over
 * Kafka are in that trace as duplicates.
 *
 * <p>The two relay arms run at once: each is an {@code iox up} of its own on ports of its own, and
 * mostly waits on it (the class set iox-cli's length, 75 s run one after the other).
 */
@Execution(ExecutionMode.CONCURRENT)
class IoxUpTracingIT {

  /**
   * Once with the services' embedded relays, once with a Kafka Connect worker running the outbox
   * connector instead: the trace context travels in the outbox row and the record's headers either
   * way.
   */
  @ParameterizedTest(name = "--relay {0}")
  @ValueSource(strings = {"embedded", "connect"})
  void eachOrderSettlesAndIsOneTraceAcrossBothServicesAndASigtermStopsEverything(String relay)
      throws Exception {
    int postgres = FreePorts.belowEphemeralRange();
    int kafka = FreePorts.belowEphemeralRange();
    int orders = FreePorts.belowEphemeralRange();
    int payments = FreePorts.belowEphemeralRange();
    int provider = FreePorts.belowEphemeralRange();
    String traceId = HexFormat.of().formatHex(randomBytes(16));
    String traceparent = "00-" + traceId + "-" + HexFormat.of().formatHex(randomBytes(8)) + "-01";
    String key = UUID.randomUUID().toString();
    try (OtlpReceiver collector = new OtlpReceiver();
        IoxProcess up =
            IoxProcess.start(
                "up",
                "--postgres-port=" + postgres,
                "--kafka-port=" + kafka,
                "--order-port=" + orders,
                "--payment-port=" + payments,
                "--provider-port=" + provider,
                "--otlp-endpoint=" + collector.endpoint(),
                "--relay=" + relay,
                "--repo=" + Repository.ROOT,
                "--reports=" + Files.createTempDirectory("iox-up"))) {
      await("iox up printed where everything is")
          .atMost(Duration.ofMinutes(5))
          .until(() -> up.output().contains("Ctrl-C stops everything.") || !up.isAlive());
      assertThat(up.isAlive()).as(up.printed()).isTrue();
      String bootstrap = "localhost:" + kafka;
      String ordersDatabase = "jdbc:postgresql://localhost:" + postgres + "/order_consumer";
      assertThat(up.printed())
          .contains("http://localhost:" + orders)
          .contains("./iox produce --bootstrap " + bootstrap)
          .contains("./iox inspect --jdbc-url " + ordersDatabase)
          .contains("OTLP to " + collector.endpoint())
          .contains(
              relay.equals("connect")
                  ? "relay               Kafka Connect worker"
                  : "relay               embedded");

      assertThat(
              IoxProcess.run("produce", "--bootstrap", bootstrap, "--count", "20", "--rate", "0"))
          .contains("20 orders")
          .contains("all acknowledged");
      assertThat(OrderRequests.placeOrder(orders, key, traceparent).statusCode()).isEqualTo(201);
      await("the payment result claimed by order-consumer in the client's trace")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  readable(collector)
                      && inTrace(collector, traceId).stream()
                          .anyMatch(
                              span ->
                                  "order-consumer".equals(span.service())
                                      && "order-payments"
                                          .equals(span.attribute("inbox.operation"))));
      HttpResponse<String> retried = OrderRequests.placeOrder(orders, key, traceparent);
      assertThat(retried.statusCode()).as(retried.body()).isIn(200, 201);
      await("the retried request's span")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  inTrace(collector, traceId).stream()
                      .anyMatch(span -> "duplicate".equals(span.attribute("inbox.decision"))));

      // The same command over Kafka, sent twice: the second copy is what a redelivery looks like.
      String commandKey = UUID.randomUUID().toString();
      String commandParent =
          "00-" + traceId + "-" + HexFormat.of().formatHex(randomBytes(8)) + "-01";
      sendTwice(kafka, commandKey, commandParent);
      await("both copies of the command claimed in the trace")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  inTrace(collector, traceId).stream()
                      .filter(span -> commandKey.equals(span.attribute("inbox.idempotency_key")))
                      .map(span -> span.attribute("inbox.decision"))
                      .toList()
                      .containsAll(List.of("new", "duplicate")));
      // Where a Prometheus server scrapes the service, both copies are timed: the redelivery
      // under the same tag keys as the applied copy.
      assertThat(commandTimers(orders))
          .anyMatch(timer -> timer.contains("inbox_decision=\"new\""))
          .anyMatch(timer -> timer.contains("inbox_decision=\"duplicate\""));

      List<Span> trace = inTrace(collector, traceId);
      String path = describe(trace);
      assertThat(trace)
          .as(path)
          .extracting(Span::service)
          .contains("order-consumer", "payment-consumer");
      // The embedded relays' spans, where they run; the worker adds none of its own.
      assertThat(trace.stream().anyMatch(span -> span.name().startsWith("outbox relay")))
          .as(path)
          .isEqualTo(relay.equals("embedded"));
      assertThat(trace)
          .as(path)
          .anySatisfy(
              span -> {
                assertThat(span.service()).isEqualTo("payment-consumer");
                assertThat(span.attribute("inbox.operation")).isEqualTo("payment-requests");
                assertThat(span.attribute("inbox.decision")).isEqualTo("new");
              })
          .anySatisfy(
              span -> {
                assertThat(span.service()).isEqualTo("payment-consumer");
                assertThat(span.name()).isEqualTo("provider charge");
                assertThat(span.kind()).isEqualTo("SPAN_KIND_CLIENT");
              })
          .anySatisfy(
              span -> {
                assertThat(span.service()).isEqualTo("payment-consumer");
                assertThat(span.kind()).isEqualTo("SPAN_KIND_SERVER");
                assertThat(span.name()).contains("/webhooks/provider");
              })
          .anySatisfy(
              span -> {
                assertThat(span.service()).isEqualTo("order-consumer");
                assertThat(span.attribute("inbox.operation")).isEqualTo("order-payments");
                assertThat(span.attribute("inbox.decision")).isEqualTo("new");
              });
      // Every span hangs from another span of the trace, or from the client's request or command:
      // nothing started a trace of its own on the way. Spans still open are exported when they
      // end.
      String clientSpan = traceparent.split("-")[2];
      await("every span's parent in the trace")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                List<Span> all = inTrace(collector, traceId);
                List<String> parents = new ArrayList<>(all.stream().map(Span::spanId).toList());
                parents.add(clientSpan);
                parents.add(commandParent.split("-")[2]);
                assertThat(all)
                    .as(describe(all))
                    .allSatisfy(span -> assertThat(parents).contains(span.parentSpanId()));
              });
      // The 20 Kafka orders and those over HTTP, each paid or failed through the provider and
      // relayed back.
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
      // PostgreSQL, started through pg_ctl, is no process of its own that a kill of iox would
      // reach: its port closed shows the stop reached it.
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

  /** The order-commands consumer's {@code inbox.consume} timers in the service's scrape. */
  private static List<String> commandTimers(int port) throws Exception {
    HttpResponse<String> scrape = OrderRequests.scrape(port);
    assertThat(scrape.statusCode()).as(scrape.body()).isEqualTo(200);
    return scrape
        .body()
        .lines()
        .filter(line -> line.startsWith("inbox_consume_seconds_count{"))
        .filter(line -> line.contains("inbox_operation=\"order-commands\""))
        .toList();
  }

  private static void sendTwice(int kafkaPort, String key, String traceparent) throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", "localhost:" + kafkaPort, "acks", "all"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (int copy = 0; copy < 2; copy++) {
        ProducerRecord<String, byte[]> command =
            new ProducerRecord<>(
                "orders.commands",
                "c-2",
                ("{\"customerId\":\"c-2\",\"items\":[{\"sku\":\"SKU-02\",\"qty\":1,"
                        + "\"unitPriceCents\":900}]}")
                    .getBytes(StandardCharsets.UTF_8));
        command.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
        command.headers().add("type", "PlaceOrder".getBytes(StandardCharsets.UTF_8));
        command.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
        producer.send(command).get();
      }
    }
  }

  private static boolean readable(OtlpReceiver collector) {
    if (!collector.failures().isEmpty()) {
      throw new AssertionError(
          "an export the collector could not read", collector.failures().get(0));
    }
    return true;
  }

  private static String describe(List<Span> spans) {
    return spans.stream()
        .map(
            span ->
                span.service()
                    + " "
                    + span.kind()
                    + " "
                    + span.name()
                    + " "
                    + span.spanId()
                    + " <- "
                    + span.parentSpanId()
                    + " "
                    + span.attributes())
        .collect(Collectors.joining("\n"));
  }

  private static List<Span> inTrace(OtlpReceiver collector, String traceId) {
    return collector.spans().stream().filter(span -> span.traceId().equals(traceId)).toList();
  }

  private static byte[] randomBytes(int count) {
    byte[] bytes = new byte[count];
    new Random().nextBytes(bytes);
    return bytes;
  }
}
