package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RefundsApiTest {

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final ObjectMapper json = new ObjectMapper();
  private PaymentProviderSimulator provider;

  @BeforeEach
  void start() {
    provider =
        PaymentProviderSimulator.builder().port(0).webhookSecret("whsec_test").build().start();
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void aRefundGivesTheChargeBackOnceAndTheSameCallAgainReplaysIt() throws Exception {
    String chargeId = charge("pay-o-1", 2500);
    HttpResponse<String> first = refund("refund-pay-o-1", refundBody(chargeId, 2500));
    assertThat(first.statusCode()).isEqualTo(201);
    JsonNode refund = json.readTree(first.body());
    assertThat(refund.get("refundId").asText()).startsWith("re_");
    assertThat(refund.get("chargeId").asText()).isEqualTo(chargeId);
    assertThat(refund.get("paymentId").asText()).isEqualTo("pay-o-1");
    assertThat(refund.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(refund.get("currency").asText()).isEqualTo("EUR");
    assertThat(refund.get("status").asText()).isEqualTo("succeeded");

    HttpResponse<String> replay =
        refund("refund-pay-o-1", "{ \"amountCents\": 2500, \"chargeId\": \"" + chargeId + "\" }");
    assertThat(replay.statusCode()).isEqualTo(200);
    assertThat(replay.headers().firstValue(PaymentProviderSimulator.REPLAYED_HEADER))
        .contains("true");
    assertThat(replay.body()).isEqualTo(first.body());

    assertThat(provider.refunds()).hasSize(1);
    RefundEntry entry = provider.refundsFor("pay-o-1").get(0);
    assertThat(entry.refundId()).isEqualTo(refund.get("refundId").asText());
    assertThat(entry.idempotencyKey()).isEqualTo("refund-pay-o-1");
    assertThat(provider.webhookEvents())
        .extracting(WebhookEvent::type)
        .containsExactly("charge.succeeded", "refund.succeeded");
    WebhookEvent refunded = provider.webhookEvents().get(1);
    JsonNode data = json.readTree(refunded.body()).get("data");
    assertThat(refunded.paymentId()).isEqualTo("pay-o-1");
    assertThat(data.get("refundId").asText()).isEqualTo(entry.refundId());
    assertThat(data.get("chargeId").asText()).isEqualTo(chargeId);
    assertThat(data.get("amountCents").asLong()).isEqualTo(2500);
  }

  @Test
  void aSecondKeyCannotRefundWhatTheFirstGaveBack() throws Exception {
    String chargeId = charge("pay-o-2", 2500);
    assertThat(refund("r-1", refundBody(chargeId, 1000)).statusCode()).isEqualTo(201);
    assertThat(refund("r-2", refundBody(chargeId, 1500)).statusCode()).isEqualTo(201);
    HttpResponse<String> beyond = refund("r-3", refundBody(chargeId, 1));
    assertThat(beyond.statusCode()).isEqualTo(400);
    assertThat(json.readTree(beyond.body()).get("error").asText())
        .isEqualTo("refund_exceeds_charge");
    assertThat(provider.refundsFor("pay-o-2"))
        .extracting(RefundEntry::amountCents)
        .containsExactly(1000L, 1500L);
  }

  @Test
  void unknownOrFailedChargesAndReusedKeysAreRefused() throws Exception {
    HttpResponse<String> unknown = refund("r-x", refundBody("ch_nope", 100));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json.readTree(unknown.body()).get("error").asText()).isEqualTo("no_such_charge");

    try (PaymentProviderSimulator failing =
        PaymentProviderSimulator.builder()
            .port(0)
            .webhookSecret("whsec_test")
            .failureShare(1.0)
            .build()
            .start()) {
      String failedCharge =
          json.readTree(charge(failing, "charge-pay-f", "pay-f", 700).body())
              .get("chargeId")
              .asText();
      HttpResponse<String> notRefundable =
          send(refundRequest(failing, "r-f", refundBody(failedCharge, 700)));
      assertThat(notRefundable.statusCode()).isEqualTo(400);
      assertThat(json.readTree(notRefundable.body()).get("error").asText())
          .isEqualTo("charge_not_refundable");
      assertThat(failing.refunds()).isEmpty();
    }

    String chargeId = charge("pay-o-3", 900);
    assertThat(refund("r-3", refundBody(chargeId, 400)).statusCode()).isEqualTo(201);
    HttpResponse<String> reused = refund("r-3", refundBody(chargeId, 500));
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(json.readTree(reused.body()).get("error").asText())
        .isEqualTo("idempotency_key_reused");
    assertThat(refund("r-bad", "{\"chargeId\":\"" + chargeId + "\"}").statusCode()).isEqualTo(400);
    assertThat(
            refund("r-bad", "{\"chargeId\":\"" + chargeId + "\",\"amountCents\":1,\"x\":1}")
                .statusCode())
        .isEqualTo(400);
    assertThat(send(refundRequest(provider, null, refundBody(chargeId, 1))).statusCode())
        .isEqualTo(400);
    assertThat(provider.refunds()).hasSize(1);
  }

  @Test
  void sixteenConcurrentCallsWithOneKeyRefundOnce() throws Exception {
    String chargeId = charge("pay-race", 2500);
    int callers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<HttpResponse<String>> responses = new ArrayList<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return refund("refund-pay-race", refundBody(chargeId, 2500));
                }));
      }
      go.countDown();
      for (Future<HttpResponse<String>> call : calls) {
        responses.add(call.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
    assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(callers - 1);
    assertThat(provider.refunds()).hasSize(1);
  }

  @Test
  void theLedgerListsRefundsBesideChargesAndAnOutageRefusesThem() throws Exception {
    String chargeId = charge("pay-o-4", 1200);
    provider.outage(true);
    assertThat(refund("refund-pay-o-4", refundBody(chargeId, 1200)).statusCode()).isEqualTo(503);
    assertThat(provider.refunds()).isEmpty();
    provider.outage(false);
    assertThat(refund("refund-pay-o-4", refundBody(chargeId, 1200)).statusCode()).isEqualTo(201);

    JsonNode ledger =
        json.readTree(
            send(HttpRequest.newBuilder(provider.baseUrl().resolve("/v1/ledger")).GET().build())
                .body());
    assertThat(ledger.get("charges")).hasSize(1);
    JsonNode refund = ledger.get("refunds").get(0);
    for (String field :
        List.of(
            "refundId",
            "chargeId",
            "paymentId",
            "amountCents",
            "currency",
            "idempotencyKey",
            "createdAt")) {
      assertThat(refund.has(field)).as(field).isTrue();
    }
    assertThat(refund.get("idempotencyKey").asText()).isEqualTo("refund-pay-o-4");
  }

  private String charge(String paymentId, long amountCents) throws Exception {
    HttpResponse<String> response = charge(provider, "charge-" + paymentId, paymentId, amountCents);
    assertThat(response.statusCode()).isEqualTo(201);
    return json.readTree(response.body()).get("chargeId").asText();
  }

  private HttpResponse<String> charge(
      PaymentProviderSimulator target, String key, String paymentId, long amountCents)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(target.baseUrl().resolve("/v1/charges"))
            .header("Idempotency-Key", key)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"paymentId\":\""
                        + paymentId
                        + "\",\"amountCents\":"
                        + amountCents
                        + ",\"currency\":\"EUR\"}"))
            .build());
  }

  private static String refundBody(String chargeId, long amountCents) {
    return "{\"chargeId\":\"" + chargeId + "\",\"amountCents\":" + amountCents + "}";
  }

  private HttpResponse<String> refund(String key, String body)
      throws IOException, InterruptedException {
    return send(refundRequest(provider, key, body));
  }

  private static HttpRequest refundRequest(
      PaymentProviderSimulator target, String key, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(target.baseUrl().resolve("/v1/refunds"))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return request.build();
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
