package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.ApiClient.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inboxoutbox.provider.WebhookReceiver.Attempt;
import dev.inboxoutbox.webhook.WebhookSignature;
import dev.inboxoutbox.webhook.WebhookSignature.Verification;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WebhookDeliveryTest {

  private static final String SECRET = "whsec_deliveries";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ObjectMapper json = new ObjectMapper();
  private WebhookReceiver receiver;
  private PaymentProviderSimulator provider;

  @BeforeEach
  void startReceiver() throws IOException {
    receiver = new WebhookReceiver();
  }

  @AfterEach
  void stop() {
    if (provider != null) {
      provider.close();
    }
    receiver.close();
  }

  @Test
  void aChargeSendsOneSignedWebhookCarryingTheContractFields() throws Exception {
    provider = start(PaymentProviderSimulator.builder());
    String chargeId = charge("charge-pay-o-1", "pay-o-1", 2500);

    Attempt delivery = receiver.awaitAttempts(a -> a.size() == 1, WAIT).get(0);
    assertThat(
            new WebhookSignature(SECRET)
                .verify(delivery.signature(), delivery.bodyBytes(), Instant.now()))
        .isEqualTo(Verification.VALID);
    JsonNode event = json.readTree(delivery.body());
    assertThat(event.get("id").asText()).startsWith("evt_");
    assertThat(event.get("type").asText()).isEqualTo("charge.succeeded");
    assertThat(event.get("created").asLong())
        .isCloseTo(Instant.now().getEpochSecond(), offset(60L));
    JsonNode data = event.get("data");
    assertThat(data.get("chargeId").asText()).isEqualTo(chargeId);
    assertThat(data.get("paymentId").asText()).isEqualTo("pay-o-1");
    assertThat(data.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(data.get("currency").asText()).isEqualTo("EUR");
    assertThat(provider.webhookEvents())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.id()).isEqualTo(event.get("id").asText());
              assertThat(e.body()).isEqualTo(delivery.body());
            });

    // A replayed request schedules no second webhook.
    charge("charge-pay-o-1", "pay-o-1", 2500);
    await("no second webhook for the replayed request")
        .during(Duration.ofMillis(300))
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(receiver.attempts()).hasSize(1));
    assertThat(provider.webhookStats()).isEqualTo(new WebhookStats(1, 0, 1, 1, 0, 0));
  }

  @Test
  void aFailedChargeSendsChargeFailed() throws Exception {
    provider = start(PaymentProviderSimulator.builder().failureShare(1.0));
    charge("charge-pay-f", "pay-f", 100);
    Attempt delivery = receiver.awaitAttempts(a -> a.size() == 1, WAIT).get(0);
    assertThat(json.readTree(delivery.body()).get("type").asText()).isEqualTo("charge.failed");
    assertThat(provider.ledger().get(0).status()).isEqualTo(ChargeStatus.FAILED);
  }

  @Test
  void withDuplicateShareOneEveryEventArrivesTwiceWithTheSameIdAndBody() throws Exception {
    provider = start(PaymentProviderSimulator.builder().duplicateShare(1.0));
    for (int i = 0; i < 5; i++) {
      charge("charge-pay-d" + i, "pay-d" + i, 100 + i);
    }
    List<Attempt> deliveries = receiver.awaitAttempts(a -> a.size() == 10, WAIT);
    Map<String, Long> copiesById =
        deliveries.stream().collect(Collectors.groupingBy(this::eventId, Collectors.counting()));
    assertThat(copiesById).hasSize(5).allSatisfy((id, copies) -> assertThat(copies).isEqualTo(2));
    Map<String, List<String>> bodiesById =
        deliveries.stream()
            .collect(
                Collectors.groupingBy(
                    this::eventId, Collectors.mapping(Attempt::body, Collectors.toList())));
    bodiesById.values().forEach(bodies -> assertThat(bodies.get(0)).isEqualTo(bodies.get(1)));
    awaitStats(stats -> stats.deliveries() == 10);
    assertThat(provider.webhookStats()).isEqualTo(new WebhookStats(5, 5, 10, 10, 0, 0));
  }

  @Test
  void aRefusedDeliveryIsRetriedUntilA2xxAndEveryAttemptIsSignedAfresh() throws Exception {
    receiver.refuseNext(3);
    provider =
        start(
            PaymentProviderSimulator.builder()
                .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(100)));
    charge("charge-pay-r", "pay-r", 700);
    List<Attempt> attempts = receiver.awaitAttempts(a -> !receiverDelivered(a).isEmpty(), WAIT);
    assertThat(attempts).hasSize(4);
    assertThat(attempts).extracting(Attempt::answeredWith).containsExactly(500, 500, 500, 200);
    assertThat(attempts).extracting(this::eventId).containsOnly(eventId(attempts.get(0)));
    WebhookSignature verifier = new WebhookSignature(SECRET);
    assertThat(attempts)
        .allSatisfy(
            a ->
                assertThat(verifier.verify(a.signature(), a.bodyBytes(), Instant.now()))
                    .isEqualTo(Verification.VALID));
    awaitStats(stats -> stats.deliveries() == 1);
    assertThat(provider.webhookStats()).isEqualTo(new WebhookStats(1, 0, 4, 1, 3, 0));
  }

  @Test
  void everyCopyOfAWebhookCarriesTheTraceContextOfTheRequestThatCausedIt() throws Exception {
    // The first attempt to arrive, the charge's or the refund's, is refused and sent again.
    receiver.refuseNext(1);
    provider =
        start(
            PaymentProviderSimulator.builder()
                .duplicateShare(1.0)
                .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(50)));
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    String chargeId =
        json(new ApiClient(provider)
                .post(
                    ChargesEndpoint.PATH,
                    "charge-pay-t",
                    ApiClient.chargeBody("pay-t", 900),
                    Map.of("traceparent", traceparent, "tracestate", "vendor=abc")))
            .get("chargeId")
            .asText();
    new ApiClient(provider).refund("refund-pay-u", ApiClient.refundBody(chargeId, 100));

    List<Attempt> attempts = receiver.awaitAttempts(a -> receiverDelivered(a).size() == 4, WAIT);

    Map<String, List<Attempt>> byType =
        attempts.stream()
            .collect(Collectors.groupingBy(a -> parse(a.body(), n -> n.get("type").asText())));
    assertThat(byType.get("charge.succeeded"))
        .as("the charge's copies, a refused one and its retry included")
        .hasSizeGreaterThanOrEqualTo(2)
        .allSatisfy(
            a -> {
              assertThat(a.traceparent()).isEqualTo(traceparent);
              assertThat(a.tracestate()).isEqualTo("vendor=abc");
            });
    assertThat(byType.get("refund.succeeded"))
        .as("a refund requested without a trace context sends none")
        .hasSizeGreaterThanOrEqualTo(2)
        .allSatisfy(
            a -> {
              assertThat(a.traceparent()).isNull();
              assertThat(a.tracestate()).isNull();
            });
  }

  @Test
  void randomDelaysReorderDeliveries() throws Exception {
    provider =
        start(
            PaymentProviderSimulator.builder()
                .delay(Duration.ZERO, Duration.ofMillis(400))
                .seed(3));
    for (int i = 0; i < 20; i++) {
      charge("charge-pay-o" + i, "pay-o" + i, 100);
    }
    List<Attempt> deliveries = receiver.awaitAttempts(a -> a.size() == 20, WAIT);
    List<String> publishedOrder = provider.webhookEvents().stream().map(WebhookEvent::id).toList();
    List<String> arrivalOrder = deliveries.stream().map(this::eventId).toList();
    assertThat(arrivalOrder).containsExactlyInAnyOrderElementsOf(publishedOrder);
    assertThat(arrivalOrder).isNotEqualTo(publishedOrder);
  }

  @Test
  void webhooksWaitForAReceiverConfiguredAfterStart() throws Exception {
    provider =
        PaymentProviderSimulator.builder()
            .port(0)
            .webhookSecret(SECRET)
            .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(50))
            .build()
            .start();
    charge("charge-pay-late", "pay-late", 100);
    await("the webhook pending while no receiver is configured")
        .during(Duration.ofMillis(200))
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(provider.webhookStats().pending()).isEqualTo(1));
    provider.webhookUrl(receiver.url());
    assertThat(receiver.awaitAttempts(a -> a.size() == 1, WAIT)).hasSize(1);
    awaitStats(stats -> stats.pending() == 0 && stats.deliveries() == 1);
  }

  private PaymentProviderSimulator start(PaymentProviderSimulator.Builder builder) {
    return builder.port(0).webhookSecret(SECRET).webhookUrl(receiver.url()).build().start();
  }

  private static List<Attempt> receiverDelivered(List<Attempt> attempts) {
    return attempts.stream().filter(a -> a.answeredWith() == 200).toList();
  }

  private void awaitStats(Predicate<WebhookStats> done) {
    await("the simulator's webhook stats")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .until(provider::webhookStats, done);
  }

  private String eventId(Attempt attempt) {
    return parse(attempt.body(), node -> node.get("id").asText());
  }

  private <T> T parse(String body, Function<JsonNode, T> field) {
    try {
      return field.apply(json.readTree(body));
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + body, e);
    }
  }

  private String charge(String key, String paymentId, long amountCents) throws Exception {
    return new ApiClient(provider).chargeId(key, paymentId, amountCents);
  }
}
