package dev.inboxoutbox.orders;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OrderConsumerIT {

  private static final Duration PATIENCE = Duration.ofSeconds(60);

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
                "iox.dev-stack.database=orders_it_" + UUID.randomUUID().toString().substring(0, 8),
                "inbox-outbox.relay.offset-flush-interval=300ms")
            // An argument: a default property loses to application.properties' port 8081.
            .run("--server.port=0");
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
    HttpResponse<String> badOrder =
        post(UUID.randomUUID().toString(), "{\"customerId\":\"c\",\"items\":[]}");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).contains("\"status\":\"PLACED\"").contains("\"totalCents\":2500");
    assertThat(replay.statusCode()).isEqualTo(201);
    assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(replay.body()).isEqualTo(first.body());
    assertThat(first.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).startsWith("/orders/o-"));
    assertThat(replay.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(otherBody.statusCode()).isEqualTo(422);
    assertThat(otherBody.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(otherBody.body())
        .contains("\"type\":\"urn:inbox-outbox:problem:idempotency-key-reused\"");
    assertThat(noKey.statusCode()).isEqualTo(400);
    assertThat(noKey.body())
        .contains("Idempotency-Key")
        .contains("urn:inbox-outbox:problem:invalid-idempotency-key");
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(badOrder.statusCode()).isEqualTo(400);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + key + "'")).isEqualTo(1);
    assertThat(first.body()).contains(orderPlacedBy(key));
    assertThat(count("SELECT initial - available FROM stock WHERE sku = 'SKU-01'"))
        .isEqualTo(
            count("SELECT coalesce(sum(qty), 0) FROM stock_reservations WHERE sku = 'SKU-01'"));
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
  void aKeyFirstUsedOverKafkaReplaysItsOutcomeOverHttp() throws Exception {
    String key = UUID.randomUUID().toString();
    String body = place("kafka-first", "SKU-04", 1);
    send("orders.commands", "kafka-first", key, "PlaceOrder", body);
    await("the Kafka command applied")
        .atMost(PATIENCE)
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox WHERE idempotency_key = '"
                            + key
                            + "' AND status = 'COMPLETED'")
                    == 1);

    HttpResponse<String> overHttp = post(key, body);

    assertThat(overHttp.statusCode()).isEqualTo(201);
    assertThat(overHttp.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(overHttp.body()).contains(orderPlacedBy(key));
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + key + "'")).isEqualTo(1);
  }

  @Test
  void kafkaCommandsAndPaymentResultsMoveTheOrderThroughItsStates() throws Exception {
    String placeKey = UUID.randomUUID().toString();
    String cancelKey = UUID.randomUUID().toString();
    send("orders.commands", "c-1", placeKey, "PlaceOrder", place("c-1", "SKU-02", 1));
    send("orders.commands", "c-1", placeKey, "PlaceOrder", place("c-1", "SKU-02", 1)); // redelivery
    send("orders.commands", "c-2", cancelKey, "PlaceOrder", place("c-2", "SKU-03", 4));
    await("orders placed")
        .atMost(PATIENCE)
        .until(() -> !orderPlacedBy(placeKey).isEmpty() && !orderPlacedBy(cancelKey).isEmpty());
    String paid = orderPlacedBy(placeKey);
    String cancelled = orderPlacedBy(cancelKey);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + placeKey + "'"))
        .isEqualTo(1);
    String captured =
        "{\"orderId\":\""
            + paid
            + "\",\"paymentId\":\"pay-"
            + paid
            + "\",\"chargeId\":\"ch_1\",\"amountCents\":1250}";
    String captureKey = UUID.randomUUID().toString();
    send("outbox.event.payment-result", paid, captureKey, "PaymentCaptured", captured);
    send(
        "outbox.event.payment-result", paid, captureKey, "PaymentCaptured", captured); // redelivery
    send(
        "orders.commands",
        cancelled,
        UUID.randomUUID().toString(),
        "CancelOrder",
        "{\"orderId\":\"" + cancelled + "\"}");
    await("paid and cancelled")
        .atMost(PATIENCE)
        .until(() -> status(paid).equals("PAID") && status(cancelled).equals("CANCELLED"));

    String lateCancelKey = UUID.randomUUID().toString();
    send("orders.commands", paid, lateCancelKey, "CancelOrder", "{\"orderId\":\"" + paid + "\"}");
    String latePaymentKey = UUID.randomUUID().toString();
    send(
        "outbox.event.payment-result",
        cancelled,
        latePaymentKey,
        "PaymentCaptured",
        captured.replace(paid, cancelled));
    await("late cancel and late payment stored as rejections")
        .atMost(PATIENCE)
        .until(
            () ->
                count(
                        "SELECT count(*) FROM inbox WHERE idempotency_key IN ('"
                            + lateCancelKey
                            + "','"
                            + latePaymentKey
                            + "') AND status = 'FAILED'")
                    == 2);
    assertThat(status(paid)).isEqualTo("PAID");
    assertThat(status(cancelled)).isEqualTo("CANCELLED");
    assertThat(
            count("SELECT count(*) FROM stock_reservations WHERE order_id = '" + cancelled + "'"))
        .isZero();
    assertThat(count("SELECT count(*) FROM orders WHERE order_id = '" + paid + "'")).isEqualTo(1);

    // The outbox reached Kafka through the relay: one PaymentRequested per placed order.
    List<ConsumerRecord<String, byte[]>> requests =
        read(
            "outbox.event.payment",
            records ->
                records.stream()
                        .filter(r -> r.key().equals(paid) || r.key().equals(cancelled))
                        .count()
                    >= 2);
    assertThat(requests.stream().filter(r -> r.key().equals(paid)).count()).isEqualTo(1);
  }

  /**
   * A client that sent PlaceOrder over Kafka never saw the order id the service made; it cancels by
   * the key it placed with, in the same partition right behind the order.
   */
  @Test
  void aCancelOrderNamingThePlaceOrderKeyCancelsTheOrderThatKeyPlaced() throws Exception {
    String placeKey = UUID.randomUUID().toString();
    String cancelKey = UUID.randomUUID().toString();
    send("orders.commands", "c-7", placeKey, "PlaceOrder", place("c-7", "SKU-04", 2));
    send(
        "orders.commands",
        "c-7",
        cancelKey,
        "CancelOrder",
        "{\"placedBy\":\"" + placeKey + "\",\"reason\":\"changed my mind\"}");
    String order = awaitCancelledOrderPlacedBy(placeKey);
    assertThat(count("SELECT count(*) FROM stock_reservations WHERE order_id = '" + order + "'"))
        .isZero();
    assertThat(
            count(
                "SELECT count(*) FROM inbox WHERE idempotency_key = '"
                    + cancelKey
                    + "' AND status = 'COMPLETED'"))
        .isEqualTo(1);
  }

  /**
   * Cancelling calls the payment off: a PaymentCancelRequested on the payment requests' topic, with
   * the order's key, so payment-consumer reads it after the PaymentRequested and either never
   * charges or refunds. A repeated cancel of the cancelled order asks nothing more.
   */
  @Test
  void aCancelledOrderCallsItsPaymentOffRightBehindThePaymentRequest() throws Exception {
    String placeKey = UUID.randomUUID().toString();
    send("orders.commands", "c-8", placeKey, "PlaceOrder", place("c-8", "SKU-05", 3));
    send(
        "orders.commands",
        "c-8",
        UUID.randomUUID().toString(),
        "CancelOrder",
        "{\"placedBy\":\"" + placeKey + "\"}");
    String order = awaitCancelledOrderPlacedBy(placeKey);
    String repeatKey = UUID.randomUUID().toString();
    send("orders.commands", "c-8", repeatKey, "CancelOrder", "{\"orderId\":\"" + order + "\"}");
    await("the repeated cancel answered")
        .atMost(PATIENCE)
        .until(
            () ->
                count("SELECT count(*) FROM inbox WHERE idempotency_key = '" + repeatKey + "'")
                    == 1);

    List<ConsumerRecord<String, byte[]>> forOrder =
        read(
                "outbox.event.payment",
                records -> records.stream().filter(r -> r.key().equals(order)).count() >= 2)
            .stream()
            .filter(r -> r.key().equals(order))
            .toList();
    assertThat(forOrder)
        .extracting(r -> header(r, "type"))
        .containsExactly("PaymentRequested", "PaymentCancelRequested");
    JsonNode cancel = JsonMapper.builder().build().readTree(TopicReader.value(forOrder.get(1)));
    assertThat(cancel.get("orderId").asString()).isEqualTo(order);
    assertThat(cancel.get("paymentId").asString()).isEqualTo("pay-" + order);
    assertThat(cancel.get("customerId").asString()).isEqualTo("c-8");
    assertThat(cancel.get("amountCents").asLong()).isEqualTo(3 * 1250);
    assertThat(cancel.get("currency").asString()).isEqualTo("EUR");
    assertThat(
            count(
                "SELECT count(*) FROM outbox WHERE type = 'PaymentCancelRequested'"
                    + " AND aggregateid = '"
                    + order
                    + "'"))
        .isEqualTo(1);
  }

  @Test
  void aNonAsciiKeyIsOneKeyWhetherItArrivesOverHttpOrKafka() throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String cafe = "k-caf\u00e9-" + suffix;
    String japanese = "\u65e5\u672c\u8a9e-" + suffix;
    String emoji = "\ud83d\ude80-" + suffix;
    String customer = "cafe-" + suffix;

    RawResponse overHttp = postUtf8(cafe, place(customer, "SKU-01", 1));
    send("orders.commands", customer, cafe, "PlaceOrder", place(customer, "SKU-01", 1));
    String sentinel =
        "after-cafe-" + suffix; // same record key, so consumed after the command above
    send(
        "orders.commands",
        customer,
        sentinel,
        "PlaceOrder",
        place("sentinel-" + suffix, "SKU-01", 1));
    RawResponse japaneseKey = postUtf8(japanese, place("utf8-" + suffix, "SKU-01", 1));
    RawResponse emojiKey = postUtf8(emoji, place("utf8-" + suffix, "SKU-01", 1));
    byte[] latin1Octets = ("k-caf\u00e9-latin1-" + suffix).getBytes(StandardCharsets.ISO_8859_1);
    RawResponse latin1Key = postRaw(latin1Octets, place("utf8-" + suffix, "SKU-01", 1));

    assertThat(overHttp.statusCode()).isEqualTo(201);
    assertThat(japaneseKey.statusCode()).isEqualTo(201);
    assertThat(emojiKey.statusCode()).isEqualTo(201);
    assertThat(latin1Key.statusCode()).as("octets that are not UTF-8").isEqualTo(400);
    assertThat(latin1Key.body()).contains("UTF-8");
    await("the Kafka commands consumed")
        .atMost(PATIENCE)
        .until(() -> !orderPlacedBy(sentinel).isEmpty());
    assertThat(count("SELECT count(*) FROM orders WHERE customer_id = '" + customer + "'"))
        .as("the Kafka command with the HTTP request's key is absorbed")
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + cafe + "'")).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + japanese + "'"))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + emoji + "'")).isEqualTo(1);
  }

  @Test
  void aFractionalQuantityOrPriceIsRefusedNamingTheFieldOverHttpAndDeadLetteredOverKafka()
      throws Exception {
    String halfQty =
        "{\"customerId\":\"frac\",\"items\":[{\"sku\":\"SKU-01\",\"qty\":1.5,\"unitPriceCents\":100}]}";
    String fractionalPrice =
        "{\"customerId\":\"frac\",\"items\":[{\"sku\":\"SKU-01\",\"qty\":1,\"unitPriceCents\":100.7}]}";
    String qtyKey = "frac-qty-" + UUID.randomUUID();
    String priceKey = "frac-price-" + UUID.randomUUID();

    HttpResponse<String> qty = post(qtyKey, halfQty);
    HttpResponse<String> price = post(priceKey, fractionalPrice);

    assertThat(qty.statusCode()).isEqualTo(400);
    assertThat(qty.body()).contains("items[0].qty");
    assertThat(price.statusCode()).isEqualTo(400);
    assertThat(price.body()).contains("items[0].unitPriceCents");
    assertThat(
            count(
                "SELECT count(*) FROM orders WHERE placed_by IN ('"
                    + qtyKey
                    + "','"
                    + priceKey
                    + "')"))
        .isZero();

    String kafkaKey = "frac-kafka-" + UUID.randomUUID();
    send("orders.commands", "frac", kafkaKey, "PlaceOrder", halfQty);
    List<ConsumerRecord<String, byte[]>> deadLetters =
        read(
            "orders.commands.DLT",
            records ->
                records.stream()
                    .anyMatch(r -> kafkaKey.equals(header(r, "iox-dlt-idempotency-key"))));
    ConsumerRecord<String, byte[]> deadLetter =
        deadLetters.stream()
            .filter(r -> kafkaKey.equals(header(r, "iox-dlt-idempotency-key")))
            .findFirst()
            .orElseThrow();
    assertThat(header(deadLetter, "iox-dlt-reason")).isEqualTo("MALFORMED_PAYLOAD");
    assertThat(header(deadLetter, "iox-dlt-detail")).contains("items[0].qty");
    assertThat(count("SELECT count(*) FROM orders WHERE placed_by = '" + kafkaKey + "'")).isZero();
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413BeforeItIsRead() throws Exception {
    byte[] twoMiB =
        ("{\"customerId\":\"big\",\"pad\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> declared =
        http.send(
            HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofByteArray(twoMiB))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    // No Content-Length: the limit holds while the body is read.
    HttpResponse<String> chunked =
        http.send(
            HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream(twoMiB)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("1048576");
    assertThat(chunked.statusCode()).isEqualTo(413);
    assertThat(count("SELECT count(*) FROM orders WHERE customer_id = 'big'")).isZero();
  }

  @Test
  void aBodyWithoutAJsonContentTypeIsRefusedWith415AsAProblemAndPlacesNothing() throws Exception {
    String unlabelled = UUID.randomUUID().toString();
    String text = UUID.randomUUID().toString();
    HttpResponse<String> withoutType =
        http.send(
            HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Idempotency-Key", unlabelled)
                .POST(HttpRequest.BodyPublishers.ofString(place("untyped", "SKU-04", 1)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> plainText =
        http.send(
            HttpRequest.newBuilder(base.resolve("/orders"))
                .header("Idempotency-Key", text)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(place("untyped", "SKU-04", 1)))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    for (HttpResponse<String> refused : List.of(withoutType, plainText)) {
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(415);
      assertThat(refused.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(refused.headers().firstValue("Accept"))
          .hasValueSatisfying(type -> assertThat(type).contains("application/json"));
    }
    assertThat(count("SELECT count(*) FROM orders WHERE customer_id = 'untyped'")).isZero();
    assertThat(
            count(
                "SELECT count(*) FROM inbox WHERE idempotency_key IN ('"
                    + unlabelled
                    + "', '"
                    + text
                    + "')"))
        .as("no key claimed")
        .isZero();
  }

  @Test
  void healthDetailsAreHiddenFromAnAnonymousCaller() throws Exception {
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(base.resolve("/actuator/health")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.body())
        .contains("\"status\"")
        .doesNotContain("components")
        .doesNotContain("relay");
  }

  private static String place(String customerId, String sku, int qty) {
    return "{\"customerId\":\""
        + customerId
        + "\",\"items\":[{\"sku\":\""
        + sku
        + "\",\"qty\":"
        + qty
        + ",\"unitPriceCents\":1250}]}";
  }

  /** Waits until the order the key placed is there and cancelled; its id. */
  private static String awaitCancelledOrderPlacedBy(String placeKey) {
    await("the order placed and cancelled")
        .atMost(PATIENCE)
        .until(
            () ->
                !orderPlacedBy(placeKey).isEmpty()
                    && status(orderPlacedBy(placeKey)).equals("CANCELLED"));
    return orderPlacedBy(placeKey);
  }

  private static String orderPlacedBy(String key) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery("SELECT order_id FROM orders WHERE placed_by = '" + key + "'")) {
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

  /**
   * Sends the key's UTF-8 octets on the wire, as curl does from a UTF-8 terminal. Over a raw
   * socket: java.net.http replaces every non-ASCII header character with '?'.
   */
  private RawResponse postUtf8(String key, String body) throws IOException {
    return postRaw(key.getBytes(StandardCharsets.UTF_8), body);
  }

  private RawResponse postRaw(byte[] keyOctets, String body) throws IOException {
    byte[] content = body.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(
        ("POST /orders HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + content.length
                + "\r\nIdempotency-Key: ")
            .getBytes(StandardCharsets.US_ASCII));
    request.writeBytes(keyOctets);
    request.writeBytes("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    request.writeBytes(content);
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(request.toByteArray());
      String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(response.substring(9, 12));
      return new RawResponse(status, response.substring(response.indexOf("\r\n\r\n") + 4));
    }
  }

  private record RawResponse(int statusCode, String body) {}

  private static void send(String topic, String recordKey, String key, String type, String json) {
    producer.send(
        RecordBuilder.to(topic).key(recordKey).idempotencyKey(key).type(type).json(json).build());
    producer.flush();
  }

  private static List<ConsumerRecord<String, byte[]>> read(
      String topic, Predicate<List<ConsumerRecord<String, byte[]>>> done) {
    try (TopicReader reader = new TopicReader(topic)) {
      return reader.readUntil(done, PATIENCE);
    }
  }

  private static String status(String orderId) {
    return Rows.text(dataSource, "SELECT status FROM orders WHERE order_id = ?", orderId)
        .orElse("");
  }

  private static long count(String sql) {
    return Rows.count(dataSource, sql);
  }
}
