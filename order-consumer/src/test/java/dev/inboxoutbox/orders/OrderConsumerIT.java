package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.DevStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

class OrderConsumerIT {

  private static ConfigurableApplicationContext app;
  private static DataSource dataSource;
  private static URI base;
  private static KafkaProducer<String, byte[]> producer;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    app =
        new SpringApplicationBuilder(OrderConsumerApplication.class)
            .properties(
                "server.port=0",
                "iox.dev-stack.database=orders_it_" + UUID.randomUUID().toString().substring(0, 8),
                "inbox-outbox.relay.offset-flush-interval=300ms")
            .run();
    dataSource = app.getBean(DataSource.class);
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    base = URI.create("http://localhost:" + port);
    producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    producer.close();
    app.close();
  }

  @Test
  void postOrdersAnswersLikeTheIdempotencyKeyDraft() throws Exception {
    String key = UUID.randomUUID().toString();
    String customer = "http-" + UUID.randomUUID();
    String body = place(customer, "SKU-01", 2);

    HttpResponse<String> first = post(key, body);
    HttpResponse<String> replay = post(key, body.replace(",", " , "));
    HttpResponse<String> otherBody = post(key, place(customer, "SKU-01", 3));
    HttpResponse<String> noKey = post(null, body);
    HttpResponse<String> badJson = post(UUID.randomUUID().toString(), "{\"orderId\":");
    HttpResponse<String> badOrder = post(UUID.randomUUID().toString(), "{\"customerId\":\"c\",\"items\":[]}");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).contains("\"status\":\"PLACED\"").contains("\"totalCents\":2500");
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(otherBody.statusCode()).isEqualTo(422);
    assertThat(noKey.statusCode()).isEqualTo(400);
    assertThat(noKey.body()).contains("Idempotency-Key");
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(badOrder.statusCode()).isEqualTo(400);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + key + "'")).isEqualTo(1);
    assertThat(first.body()).contains(orderPlacedBy(key));
    assertThat(count("SELECT initial - available FROM stock WHERE sku = 'SKU-01'"))
        .isEqualTo(count("SELECT coalesce(sum(qty), 0) FROM stock_reservations WHERE sku = 'SKU-01'"));
  }

  @Test
  void outOfStockIsAStoredRejectionThatReplays() throws Exception {
    String key = UUID.randomUUID().toString();
    String body = place("rare", "SKU-RARE", 51);
    HttpResponse<String> first = post(key, body);
    HttpResponse<String> again = post(key, body);
    assertThat(first.statusCode()).isEqualTo(409);
    assertThat(first.body()).contains("out_of_stock");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(count("SELECT available FROM stock WHERE sku = 'SKU-RARE'")).isEqualTo(50);
  }

  @Test
  void kafkaCommandsAndPaymentResultsMoveTheOrderThroughItsStates() throws Exception {
    String placeKey = UUID.randomUUID().toString();
    String cancelKey = UUID.randomUUID().toString();
    send("orders.commands", "c-1", placeKey, "PlaceOrder", place("c-1", "SKU-02", 1));
    send("orders.commands", "c-1", placeKey, "PlaceOrder", place("c-1", "SKU-02", 1)); // redelivery
    send("orders.commands", "c-2", cancelKey, "PlaceOrder", place("c-2", "SKU-03", 4));
    awaitTrue(() -> !orderPlacedBy(placeKey).isEmpty() && !orderPlacedBy(cancelKey).isEmpty(), "orders placed");
    String paid = orderPlacedBy(placeKey);
    String cancelled = orderPlacedBy(cancelKey);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + placeKey + "'")).isEqualTo(1);
    String captured = "{\"orderId\":\"" + paid + "\",\"paymentId\":\"pay-" + paid + "\",\"chargeId\":\"ch_1\",\"amountCents\":1250}";
    String captureKey = UUID.randomUUID().toString();
    send("outbox.event.payment-result", paid, captureKey, "PaymentCaptured", captured);
    send("outbox.event.payment-result", paid, captureKey, "PaymentCaptured", captured); // redelivery
    send("orders.commands", cancelled, UUID.randomUUID().toString(), "CancelOrder", "{\"orderId\":\"" + cancelled + "\"}");
    awaitTrue(() -> status(paid).equals("PAID") && status(cancelled).equals("CANCELLED"), "paid and cancelled");

    String lateCancelKey = UUID.randomUUID().toString();
    send("orders.commands", paid, lateCancelKey, "CancelOrder", "{\"orderId\":\"" + paid + "\"}");
    String latePaymentKey = UUID.randomUUID().toString();
    send("outbox.event.payment-result", cancelled, latePaymentKey, "PaymentCaptured",
        captured.replace(paid, cancelled));
    awaitTrue(() -> count("SELECT count(*) FROM inbox WHERE idempotency_key IN ('" + lateCancelKey + "','" + latePaymentKey
        + "') AND status = 'FAILED'") == 2, "late cancel and late payment stored as rejections");
    assertThat(status(paid)).isEqualTo("PAID");
    assertThat(status(cancelled)).isEqualTo("CANCELLED");
    assertThat(count("SELECT count(*) FROM stock_reservations WHERE order_id = '" + cancelled + "'")).isZero();
    assertThat(count("SELECT count(*) FROM orders WHERE order_id = '" + paid + "'")).isEqualTo(1);

    // The outbox reached Kafka through the relay: one PaymentRequested per placed order.
    List<ConsumerRecord<String, byte[]>> requests = read("outbox.event.payment",
        records -> records.stream().filter(r -> r.key().equals(paid) || r.key().equals(cancelled)).count() >= 2);
    assertThat(requests.stream().filter(r -> r.key().equals(paid)).count()).isEqualTo(1);
  }

  private static String place(String customerId, String sku, int qty) {
    return "{\"customerId\":\"" + customerId + "\",\"items\":[{\"sku\":\"" + sku
        + "\",\"qty\":" + qty + ",\"unitPriceCents\":1250}]}";
  }

  private static String orderPlacedBy(String key) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT order_id FROM orders WHERE placed_by = '" + key + "'")) {
      return row.next() ? row.getString(1) : "";
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private HttpResponse<String> post(String key, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve("/orders"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void send(String topic, String recordKey, String key, String type, String json) {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(topic, recordKey, json.getBytes(StandardCharsets.UTF_8));
    record.headers().add("Idempotency-Key", key.getBytes(StandardCharsets.UTF_8));
    record.headers().add("type", type.getBytes(StandardCharsets.UTF_8));
    producer.send(record);
    producer.flush();
  }

  private static List<ConsumerRecord<String, byte[]>> read(
      String topic, java.util.function.Predicate<List<ConsumerRecord<String, byte[]>>> done) throws InterruptedException {
    List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", DevStack.shared().kafka().bootstrapServers(),
                "group.id", "reader-" + UUID.randomUUID(), "auto.offset.reset", "earliest"),
            new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      Instant deadline = Instant.now().plusSeconds(60);
      while (!done.test(seen)) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError("timed out reading " + topic + ": " + seen.size() + " records");
        }
        consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
      }
    }
    return seen;
  }

  private static String status(String orderId) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT status FROM orders WHERE order_id = '" + orderId + "'")) {
      return row.next() ? row.getString(1) : "";
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int count(String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    Instant deadline = Instant.now().plusSeconds(60);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(100);
    }
  }
}
