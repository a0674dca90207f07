package dev.inboxoutbox.payment;

import static dev.inboxoutbox.testing.kafka.TopicReader.header;
import static dev.inboxoutbox.testing.kafka.TopicReader.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.provider.ChargeStatus;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import dev.inboxoutbox.provider.RefundEntry;
import dev.inboxoutbox.provider.WebhookEvent;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelayState;
import dev.inboxoutbox.spring.IdempotentConsumers;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.webhook.WebhookSignature;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The whole service against real PostgreSQL, a real Kafka broker and the provider simulator over
 * HTTP: {@code PaymentRequested} in, one charge at the provider, verified webhooks, one {@code
 * PaymentCaptured} / {@code PaymentFailed} out; {@code PaymentCancelRequested} in, no charge or one
 * refund. The simulator delivers every webhook twice after a random delay and fails half of the
 * charges (predictably per key, so each test picks an order that ends the way it needs).
 */
class PaymentFlowIT {

  private static final String SECRET = "whsec_payment_flow_it";
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final WebhookSignature SIGNER = new WebhookSignature(SECRET);

  private static Database database;
  private static PaymentProviderSimulator provider;
  private static ConfigurableApplicationContext app;
  private static KafkaProducer<String, byte[]> producer;
  private static URI webhookUrl;
  private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  private static String paymentTopic;
  private static String chargeTopic;
  private static String resultTopic;
  private static String refundTopic;

  @BeforeAll
  static void start() throws Exception {
    database = DevStack.shared().postgres().createDatabase();
    provider =
        PaymentProviderSimulator.builder()
            .port(0)
            .webhookSecret(SECRET)
            .failureShare(0.5)
            .duplicateShare(1.0)
            .delay(Duration.ZERO, Duration.ofMillis(200))
            .retryBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
            .seed(11)
            .build()
            .start();
    // Topics of their own: the broker is shared by every test class of this JVM.
    String prefix = "payment-it-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    paymentTopic = prefix + "outbox.event.payment";
    chargeTopic = prefix + "outbox.event.charge";
    resultTopic = prefix + "outbox.event.payment-result";
    refundTopic = prefix + "outbox.event.refund";
    // Command-line arguments, because they outrank application.properties (builder properties do
    // not).
    app =
        new SpringApplicationBuilder(PaymentConsumerApplication.class)
            // Spring Boot's OpenTelemetry export hands every span to each SpanExporter bean.
            .initializers(context -> context.getBeanFactory().registerSingleton("testSpans", SPANS))
            .run(
                "--management.tracing.sampling.probability=1.0",
                "--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.username=" + database.username(),
                "--spring.datasource.password=" + database.password(),
                "--spring.kafka.bootstrap-servers=" + DevStack.shared().kafka().bootstrapServers(),
                "--server.port=0",
                "--payment.provider.url=" + provider.baseUrl(),
                "--payment.provider.webhook-secret=" + SECRET,
                "--payment.provider.retry-backoff=50ms",
                "--payment.topics.payment-requests=" + paymentTopic,
                "--payment.topics.charges=" + chargeTopic,
                "--payment.topics.refunds=" + refundTopic,
                "--inbox-outbox.relay.topic-replacement="
                    + prefix
                    + "outbox.event.${routedByValue}",
                "--inbox-outbox.relay.offset-flush-interval=300ms",
                "--inbox-outbox.consumer.retry-backoff-max=1s");
    webhookUrl =
        URI.create(
            "http://localhost:"
                + app.getEnvironment().getProperty("local.server.port")
                + "/webhooks/provider");
    provider.webhookUrl(webhookUrl);
    // The relay only streams rows written after its slot exists.
    OutboxRelay relay = app.getBean(OutboxRelay.class);
    await("relay streaming")
        .atMost(WAIT)
        .until(
            () ->
                relay.state() == RelayState.RUNNING
                    && count(
                            "SELECT count(*) FROM pg_replication_slots WHERE database = current_database() AND active")
                        == 1);
    producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers", DevStack.shared().kafka().bootstrapServers(), "acks", "all"),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() {
    if (producer != null) {
      producer.close();
    }
    if (app != null) {
      app.close();
    }
    if (provider != null) {
      provider.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void aPaymentRequestIsChargedOnceAndCapturedThroughTheWebhook() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());

    awaitStatus(paymentId, "CAPTURED");
    LedgerEntry charge = onlyCharge(paymentId);
    assertThat(charge.idempotencyKey()).isEqualTo("charge-" + paymentId);
    assertThat(charge.amountCents()).isEqualTo(2500);
    assertThat(charge.status()).isEqualTo(ChargeStatus.SUCCEEDED);
    assertThat(text("SELECT charge_id FROM payments WHERE payment_id = ?", paymentId))
        .contains(charge.chargeId());

    try (TopicReader charges = new TopicReader(chargeTopic)) {
      ConsumerRecord<String, byte[]> chargeRequested =
          charges.readUntil(paymentId, r -> !r.isEmpty(), WAIT).get(0);
      assertThat(header(chargeRequested, "type")).isEqualTo("ChargeRequested");
      JsonNode payload = JSON.readTree(value(chargeRequested));
      assertThat(payload.get("paymentId").asString()).isEqualTo(paymentId);
      assertThat(payload.get("orderId").asString()).isEqualTo(orderId);
      assertThat(payload.get("amountCents").asLong()).isEqualTo(2500);
      assertThat(payload.get("currency").asString()).isEqualTo("EUR");
      assertThat(payload.get("idempotencyKey").asString()).isEqualTo("charge-" + paymentId);
    }
    ConsumerRecord<String, byte[]> result = onlyResult(orderId);
    assertThat(header(result, "type")).isEqualTo("PaymentCaptured");
    JsonNode captured = JSON.readTree(value(result));
    assertThat(captured.get("orderId").asString()).isEqualTo(orderId);
    assertThat(captured.get("paymentId").asString()).isEqualTo(paymentId);
    assertThat(captured.get("chargeId").asString()).isEqualTo(charge.chargeId());
    assertThat(captured.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(captured.get("reason").isNull()).isTrue();
  }

  @Test
  void theSamePaymentRequestedDeliveredTwiceChargesOnce() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    String eventId = UUID.randomUUID().toString();
    requestPayment(orderId, eventId);
    requestPayment(orderId, eventId);
    // The same payment asked for again under another event id (say, a re-emitting order service).
    String otherEventId = UUID.randomUUID().toString();
    requestPayment(orderId, otherEventId);

    // Same record key, same partition: once the last is consumed, so are the two before it.
    await("third request consumed")
        .atMost(WAIT)
        .until(() -> inboxStatus(PaymentRequestHandler.OPERATION, otherEventId).isPresent());
    awaitStatus(paymentId, "CAPTURED");
    assertThat(inboxStatus(PaymentRequestHandler.OPERATION, eventId)).contains("COMPLETED");
    assertThat(inboxStatus(PaymentRequestHandler.OPERATION, otherEventId)).contains("COMPLETED");
    onlyCharge(paymentId);
    assertThat(count("SELECT count(*) FROM payments WHERE order_id = ?", orderId)).isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM outbox WHERE type = 'ChargeRequested' AND aggregateid = ?",
                paymentId))
        .isEqualTo(1);
    onlyResult(orderId);
  }

  @Test
  void aWebhookDeliveredThreeTimesCapturesOnceAndReportsOnce() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    double duplicatesBefore = webhookDeliveries("duplicate");
    requestPayment(orderId, UUID.randomUUID().toString());
    awaitStatus(paymentId, "CAPTURED");
    long versionAfterCapture =
        count("SELECT version FROM payments WHERE payment_id = ?", paymentId);
    WebhookEvent event = firstWebhookOf(paymentId);
    // The simulator delivers each event twice; a third copy comes late, after the capture, signed
    // afresh as a provider's retry would be, and is acknowledged like the first.
    await("the simulator's second copy answered")
        .atMost(WAIT)
        .until(() -> webhookDeliveries("duplicate") >= duplicatesBefore + 1);
    HttpResponse<String> third =
        postWebhook(event.bodyBytes(), SIGNER.sign(event.bodyBytes(), Instant.now()));

    assertThat(third.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(third.body()).get("duplicate").asString()).isEqualTo("true");
    assertThat(webhookDeliveries("duplicate")).isGreaterThanOrEqualTo(duplicatesBefore + 2);
    assertThat(inboxStatus(ProviderWebhookHandler.OPERATION, event.id())).contains("COMPLETED");
    assertThat(count("SELECT version FROM payments WHERE payment_id = ?", paymentId))
        .isEqualTo(versionAfterCapture);
    assertThat(onlyCharge(paymentId).status()).isEqualTo(ChargeStatus.SUCCEEDED);
    assertThat(header(onlyResult(orderId), "type")).isEqualTo("PaymentCaptured");
    assertThat(
            text(
                "SELECT causation_id FROM outbox WHERE aggregatetype = 'payment-result'"
                    + " AND aggregateid = ?",
                orderId))
        .contains(event.id());
  }

  /**
   * A traced provider's repeated webhook: its request span continues the provider's trace and says
   * the inbox absorbed it.
   */
  @Test
  void aRepeatedWebhookIsADuplicateInTheTraceOfTheRequestThatSentIt() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());
    awaitStatus(paymentId, "CAPTURED");
    WebhookEvent event = firstWebhookOf(paymentId);
    String traceId = UUID.randomUUID().toString().replace("-", "");
    String traceparent = "00-" + traceId + "-00f067aa0ba902b7-01";

    HttpResponse<String> repeated =
        postWebhook(event.bodyBytes(), SIGNER.sign(event.bodyBytes(), Instant.now()), traceparent);

    assertThat(repeated.statusCode()).isEqualTo(200);

    await("the repeated webhook's request span")
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(SPANS.getFinishedSpanItems())
                    .filteredOn(span -> span.getTraceId().equals(traceId))
                    .anySatisfy(
                        span -> {
                          assertThat(span.getKind()).isEqualTo(SpanKind.SERVER);
                          assertThat(span.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
                          assertThat(
                                  span.getAttributes()
                                      .get(AttributeKey.stringKey("inbox.operation")))
                              .isEqualTo(ProviderWebhookHandler.OPERATION);
                          assertThat(
                                  span.getAttributes()
                                      .get(AttributeKey.stringKey("inbox.decision")))
                              .isEqualTo("duplicate");
                          assertThat(
                                  span.getAttributes()
                                      .get(AttributeKey.stringKey("inbox.idempotency_key")))
                              .isEqualTo(event.id());
                        }));
  }

  /** One event id with two bodies is refused, never applied as a second event. */
  @Test
  void anEventIdReusedWithAnotherBodyIs422AndChangesNothing() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());
    awaitStatus(paymentId, "CAPTURED");
    LedgerEntry charge = onlyCharge(paymentId);
    WebhookEvent event = firstWebhookOf(paymentId);
    long version = count("SELECT version FROM payments WHERE payment_id = ?", paymentId);
    Optional<String> outcome = inboxOutcome(ProviderWebhookHandler.OPERATION, event.id());
    assertThat(inboxStatus(ProviderWebhookHandler.OPERATION, event.id())).contains("COMPLETED");

    byte[] otherBody = webhookBody(event.id(), "charge.failed", paymentId, charge.chargeId(), 2500);
    HttpResponse<String> reused = postWebhook(otherBody, SIGNER.sign(otherBody, Instant.now()));

    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(JSON.readTree(reused.body()).get("error").asString()).isEqualTo("event_id_reused");
    assertThat(count("SELECT version FROM payments WHERE payment_id = ?", paymentId))
        .isEqualTo(version);
    assertThat(inboxOutcome(ProviderWebhookHandler.OPERATION, event.id())).isEqualTo(outcome);
    assertThat(inboxStatus(ProviderWebhookHandler.OPERATION, event.id())).contains("COMPLETED");
    assertThat(header(onlyResult(orderId), "type")).isEqualTo("PaymentCaptured");
  }

  @Test
  void aFailedChargeFailsThePaymentAndReportsPaymentFailedOnce() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.FAILED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());

    awaitStatus(paymentId, "FAILED");
    LedgerEntry charge = onlyCharge(paymentId);
    assertThat(charge.status()).isEqualTo(ChargeStatus.FAILED);
    ConsumerRecord<String, byte[]> result = onlyResult(orderId);
    assertThat(header(result, "type")).isEqualTo("PaymentFailed");
    JsonNode failed = JSON.readTree(value(result));
    assertThat(failed.get("chargeId").asString()).isEqualTo(charge.chargeId());
    assertThat(failed.get("reason").asString()).isEqualTo("charge_failed");
  }

  @Test
  void aLateContradictoryWebhookIsStoredAsARejectionAndChangesNothing() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());
    awaitStatus(paymentId, "CAPTURED");
    LedgerEntry charge = onlyCharge(paymentId);

    String lateEventId = "evt_late_" + shortId();
    byte[] late =
        webhookBody(
            lateEventId, "charge.failed", paymentId, charge.chargeId(), charge.amountCents());
    assertThat(postWebhook(late, SIGNER.sign(late, Instant.now())).statusCode()).isEqualTo(200);

    assertThat(inboxStatus(ProviderWebhookHandler.OPERATION, lateEventId)).contains("FAILED");
    assertThat(inboxOutcome(ProviderWebhookHandler.OPERATION, lateEventId).orElseThrow())
        .contains("payment_already_captured");
    assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paymentId))
        .contains("CAPTURED");
    assertThat(header(onlyResult(orderId), "type")).isEqualTo("PaymentCaptured");
  }

  @Test
  void aProviderOutageDelaysTheChargeAndLosesNothing() throws Exception {
    long deadLettersBefore = charger().snapshot().deadLettered();
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;

    whileTheProviderIsDown(
        orderId,
        2,
        () -> {
          assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paymentId))
              .contains("REQUESTED");
          assertThat(provider.ledgerFor(paymentId)).isEmpty();
        });

    awaitStatus(paymentId, "CAPTURED");
    onlyCharge(paymentId);
    assertThat(charger().snapshot().deadLettered()).isEqualTo(deadLettersBefore);
    onlyResult(orderId);
  }

  /**
   * The order is cancelled after its payment was captured: the charge is refunded once, under the
   * payment's own refund key, however often the cancel and the refund's webhook arrive.
   */
  @Test
  void aCancelAfterTheCaptureRefundsTheChargeOnce() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    requestPayment(orderId, UUID.randomUUID().toString());
    awaitStatus(paymentId, "CAPTURED");

    String cancelEventId = UUID.randomUUID().toString();
    cancelPayment(orderId, cancelEventId);
    cancelPayment(orderId, cancelEventId); // a redelivery
    cancelPayment(orderId, UUID.randomUUID().toString()); // the same cancel, another event

    awaitStatus(paymentId, "REFUNDED");
    LedgerEntry charge = onlyCharge(paymentId);
    RefundEntry refund = onlyRefund(paymentId);
    assertThat(refund.chargeId()).isEqualTo(charge.chargeId());
    assertThat(refund.amountCents()).isEqualTo(2500);
    assertThat(refund.idempotencyKey()).isEqualTo("refund-" + paymentId);
    assertThat(text("SELECT refund_id FROM payments WHERE payment_id = ?", paymentId))
        .contains(refund.refundId());

    // The refund's webhook once more, signed afresh as a provider's retry would be.
    WebhookEvent refunded =
        provider.webhookEvents().stream()
            .filter(e -> e.paymentId().equals(paymentId) && e.type().equals("refund.succeeded"))
            .findFirst()
            .orElseThrow();
    long versionAfterRefund = count("SELECT version FROM payments WHERE payment_id = ?", paymentId);
    HttpResponse<String> again =
        postWebhook(refunded.bodyBytes(), SIGNER.sign(refunded.bodyBytes(), Instant.now()));
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(again.body()).get("duplicate").asString()).isEqualTo("true");
    assertThat(count("SELECT version FROM payments WHERE payment_id = ?", paymentId))
        .isEqualTo(versionAfterRefund);
    await("no second refund")
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> provider.refundsFor(paymentId).size() == 1);
    assertThat(
            count(
                "SELECT count(*) FROM outbox WHERE type = 'RefundRequested' AND aggregateid = ?",
                paymentId))
        .isEqualTo(1);
    // The capture was reported before the cancel; nothing contradicts it afterwards.
    assertThat(header(onlyResult(orderId), "type")).isEqualTo("PaymentCaptured");
  }

  /**
   * The cancel reaches the payment before the provider took the money (the provider is down, so the
   * charge waits): the charge is never made.
   */
  @Test
  void aCancelBeforeTheChargeMeansNoChargeAtAll() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;

    whileTheProviderIsDown(
        orderId,
        1,
        () -> {
          cancelPayment(orderId, UUID.randomUUID().toString());
          awaitStatus(paymentId, "CANCELLED");
        });

    String chargeEventId =
        text(
                "SELECT id::text FROM outbox WHERE type = 'ChargeRequested' AND aggregateid = ?",
                paymentId)
            .orElseThrow();
    await("the charge request consumed")
        .atMost(WAIT)
        .until(
            () ->
                inboxStatus(ChargeRequestHandler.OPERATION, chargeEventId)
                    .equals(Optional.of("COMPLETED")));
    assertThat(provider.ledgerFor(paymentId)).isEmpty();
    assertThat(provider.refundsFor(paymentId)).isEmpty();
    assertThat(text("SELECT status FROM payments WHERE payment_id = ?", paymentId))
        .contains("CANCELLED");
    assertThat(resultRows(orderId)).isZero();
  }

  /**
   * The charge is made, the cancel comes while its webhook is still on the way, and the capture
   * arrives after the cancel: the late capture leads to the refund, and no PaymentCaptured is
   * reported for an order that is cancelled.
   */
  @Test
  void aCaptureArrivingAfterTheCancelIsRefunded() throws Exception {
    String orderId = orderEndingIn(ChargeStatus.SUCCEEDED);
    String paymentId = "pay-" + orderId;
    // Nothing listens there: the provider keeps every webhook and retries until redirected back.
    provider.webhookUrl(URI.create("http://localhost:1/webhooks/provider"));
    try {
      requestPayment(orderId, UUID.randomUUID().toString());
      awaitStatus(paymentId, "CHARGE_REQUESTED");
      cancelPayment(orderId, UUID.randomUUID().toString());
      awaitStatus(paymentId, "CANCELLED");
    } finally {
      provider.webhookUrl(webhookUrl);
    }

    awaitStatus(paymentId, "REFUNDED");
    RefundEntry refund = onlyRefund(paymentId);
    assertThat(refund.chargeId()).isEqualTo(onlyCharge(paymentId).chargeId());
    assertThat(refund.idempotencyKey()).isEqualTo("refund-" + paymentId);
    assertThat(resultRows(orderId)).isZero();
  }

  @Test
  void aBadSignatureIs401AndWritesNothing() throws Exception {
    String paymentId = "pay-forged-" + shortId();
    String eventId = "evt_forged_" + shortId();
    byte[] body = webhookBody(eventId, "charge.succeeded", paymentId, "ch_forged", 2500);

    HttpResponse<String> wrongSecret =
        postWebhook(body, new WebhookSignature("whsec_attacker").sign(body, Instant.now()));
    assertThat(wrongSecret.statusCode()).isEqualTo(401);
    assertThat(JSON.readTree(wrongSecret.body()).get("reason").asString()).isEqualTo("MISMATCH");
    byte[] tampered =
        new String(body, StandardCharsets.UTF_8)
            .replace("2500", "1")
            .getBytes(StandardCharsets.UTF_8);
    assertThat(postWebhook(tampered, SIGNER.sign(body, Instant.now())).statusCode()).isEqualTo(401);
    assertThat(postWebhook(body, null).statusCode()).isEqualTo(401);
    // Correctly signed but not an event this service can apply: refused, and the claim rolled back.
    byte[] noPayment =
        "{\"id\":\"evt_x\",\"type\":\"charge.succeeded\",\"data\":{}}"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(postWebhook(noPayment, SIGNER.sign(noPayment, Instant.now())).statusCode())
        .isEqualTo(400);

    assertNothingWritten(paymentId, eventId);
  }

  @Test
  void aBodyOverTheLimitIs413BeforeTheSignatureIsChecked() throws Exception {
    byte[] twoMiB = new byte[2 * 1024 * 1024];
    java.util.Arrays.fill(twoMiB, (byte) 'x');
    HttpResponse<String> tooLarge = postWebhook(twoMiB, SIGNER.sign(twoMiB, Instant.now()));
    assertThat(tooLarge.statusCode()).isEqualTo(413);
  }

  @Test
  void aStaleTimestampIs401AndWritesNothing() throws Exception {
    String paymentId = "pay-replayed-" + shortId();
    String eventId = "evt_replayed_" + shortId();
    byte[] body = webhookBody(eventId, "charge.succeeded", paymentId, "ch_replayed", 2500);

    // A genuine delivery captured minutes ago and replayed now (10 s past the tolerance:
    // whole-second timestamps).
    HttpResponse<String> stale =
        postWebhook(body, SIGNER.sign(body, Instant.now().minusSeconds(310)));
    assertThat(stale.statusCode()).isEqualTo(401);
    assertThat(JSON.readTree(stale.body()).get("reason").asString()).isEqualTo("STALE");
    assertThat(postWebhook(body, SIGNER.sign(body, Instant.now().plusSeconds(310))).statusCode())
        .isEqualTo(401);

    assertNothingWritten(paymentId, eventId);
  }

  /**
   * Refused webhooks left nothing: the endpoint applies in the request, so by its answer the claim,
   * the payment and the outbox are as they will stay.
   */
  private static void assertNothingWritten(String paymentId, String refusedEventId) {
    assertThat(inboxStatus(ProviderWebhookHandler.OPERATION, refusedEventId)).isEmpty();
    assertThat(count("SELECT count(*) FROM payments WHERE payment_id = ?", paymentId)).isZero();
    assertThat(count("SELECT count(*) FROM outbox WHERE causation_id = ?", refusedEventId))
        .isZero();
  }

  /** The first event the provider sent about the payment. */
  private static WebhookEvent firstWebhookOf(String paymentId) {
    return provider.webhookEvents().stream()
        .filter(e -> e.paymentId().equals(paymentId))
        .findFirst()
        .orElseThrow();
  }

  /** Webhook deliveries the endpoint answered with the inbox's {@code decision}. */
  private static double webhookDeliveries(String decision) {
    return app.getBean(MeterRegistry.class)
        .get("payment.webhooks")
        .tag("decision", decision)
        .counter()
        .count();
  }

  /** The provider made exactly one charge for the payment. */
  private static LedgerEntry onlyCharge(String paymentId) {
    List<LedgerEntry> charges = provider.ledgerFor(paymentId);
    assertThat(charges).as("charges of " + paymentId).hasSize(1);
    return charges.get(0);
  }

  /** The provider made exactly one refund for the payment. */
  private static RefundEntry onlyRefund(String paymentId) {
    List<RefundEntry> refunds = provider.refundsFor(paymentId);
    assertThat(refunds).as("refunds of " + paymentId).hasSize(1);
    return refunds.get(0);
  }

  /** The charger's counters. */
  private static ConsumerStats charger() {
    return app.getBean(IdempotentConsumers.class).stats().get(ChargeRequestHandler.OPERATION);
  }

  /** What a step does while the provider is down. */
  @FunctionalInterface
  private interface OutageStep {
    void run() throws Exception;
  }

  /**
   * Requests the order's payment with the provider down, waits until the charger has failed on it
   * {@code chargeFailures} more times, runs {@code meanwhile}, and brings the provider back.
   */
  private static void whileTheProviderIsDown(
      String orderId, int chargeFailures, OutageStep meanwhile) throws Exception {
    long transientBefore = charger().snapshot().transientFailures();
    provider.outage(true);
    try {
      requestPayment(orderId, UUID.randomUUID().toString());
      await("the charge retried while the provider is down")
          .atMost(WAIT)
          .until(
              () -> charger().snapshot().transientFailures() >= transientBefore + chargeFailures);
      meanwhile.run();
    } finally {
      provider.outage(false);
    }
  }

  /** The result events (PaymentCaptured, PaymentFailed) in the outbox for the order. */
  private static long resultRows(String orderId) {
    return count(
        "SELECT count(*) FROM outbox WHERE aggregatetype = 'payment-result' AND aggregateid = ?",
        orderId);
  }

  /**
   * Exactly one result event for the order: one outbox row, and on Kafka only copies of that one
   * event (the relay is at-least-once; repeats would carry the same id and be absorbed downstream).
   */
  private static ConsumerRecord<String, byte[]> onlyResult(String orderId) throws Exception {
    assertThat(resultRows(orderId)).isEqualTo(1);
    OutboxRelay relay = app.getBean(OutboxRelay.class);
    await("outbox relayed").atMost(WAIT).until(() -> relay.lag().unpublishedRows() == 0);
    try (TopicReader results = new TopicReader(resultTopic)) {
      List<ConsumerRecord<String, byte[]>> records =
          results.readUntil(orderId, r -> !r.isEmpty(), WAIT);
      assertThat(records)
          .extracting(r -> header(r, "Idempotency-Key"))
          .containsOnly(header(records.get(0), "Idempotency-Key"));
      return records.get(0);
    }
  }

  /** An order id whose charge the simulator will make succeed or fail, as the test needs. */
  private static String orderEndingIn(ChargeStatus wanted) {
    while (true) {
      String orderId = "o-" + shortId();
      if (provider.outcomeFor("charge-pay-" + orderId) == wanted) {
        return orderId;
      }
    }
  }

  private static void requestPayment(String orderId, String eventId) throws Exception {
    sendPaymentEvent("PaymentRequested", orderId, eventId);
  }

  /** What the order service emits when it cancels the order, keyed like its payment request. */
  private static void cancelPayment(String orderId, String eventId) throws Exception {
    sendPaymentEvent("PaymentCancelRequested", orderId, eventId);
  }

  /** An order service event about the order's payment of 25.00 EUR: both name all of it. */
  private static void sendPaymentEvent(String type, String orderId, String eventId)
      throws Exception {
    ObjectNode payload = JSON.createObjectNode();
    payload.put("orderId", orderId);
    payload.put("paymentId", "pay-" + orderId);
    payload.put("customerId", "c-" + orderId);
    payload.put("amountCents", 2500);
    payload.put("currency", "EUR");
    ProducerRecord<String, byte[]> record =
        RecordBuilder.to(paymentTopic)
            .key("pay-" + orderId)
            .idempotencyKey(eventId)
            .type(type)
            .body(JSON.writeValueAsBytes(payload))
            .build();
    producer.send(record).get();
  }

  private static byte[] webhookBody(
      String eventId, String type, String paymentId, String chargeId, long amountCents)
      throws IOException {
    ObjectNode event = JSON.createObjectNode();
    event.put("id", eventId);
    event.put("type", type);
    event.put("created", Instant.now().getEpochSecond());
    ObjectNode data = event.putObject("data");
    data.put("chargeId", chargeId);
    data.put("paymentId", paymentId);
    data.put("amountCents", amountCents);
    data.put("currency", "EUR");
    return JSON.writeValueAsBytes(event);
  }

  private static HttpResponse<String> postWebhook(byte[] body, String signature) throws Exception {
    return postWebhook(body, signature, null);
  }

  /** The webhook as a provider sends it; {@code traceparent} too when not null. */
  private static HttpResponse<String> postWebhook(byte[] body, String signature, String traceparent)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(webhookUrl)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (signature != null) {
      request.header(WebhookSignature.HEADER, signature);
    }
    if (traceparent != null) {
      request.header("traceparent", traceparent);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void awaitStatus(String paymentId, String status) throws InterruptedException {
    await(paymentId + " " + status)
        .atMost(WAIT)
        .until(
            () ->
                text("SELECT status FROM payments WHERE payment_id = ?", paymentId)
                    .equals(Optional.of(status)));
  }

  private static Optional<String> inboxStatus(String operation, String key) {
    return text(
        "SELECT status FROM inbox WHERE operation = ? AND idempotency_key = ?", operation, key);
  }

  private static Optional<String> inboxOutcome(String operation, String key) {
    return text(
        "SELECT outcome_body::text FROM inbox WHERE operation = ? AND idempotency_key = ?",
        operation,
        key);
  }

  private static long count(String sql, String... parameters) {
    return Rows.count(database.dataSource(), sql, (Object[]) parameters);
  }

  private static Optional<String> text(String sql, String... parameters) {
    return Rows.text(database.dataSource(), sql, (Object[]) parameters);
  }

  private static String shortId() {
    return UUID.randomUUID().toString().substring(0, 8);
  }
}
