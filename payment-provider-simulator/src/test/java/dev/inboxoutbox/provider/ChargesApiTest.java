package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
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

class ChargesApiTest {

  private static final String BODY =
      "{\"paymentId\":\"pay-o-1\",\"amountCents\":2500,\"currency\":\"EUR\"}";

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
  void firstCallChargesAndTheSameCallAgainReplaysTheStoredResponse() throws Exception {
    HttpResponse<String> first = charge("charge-pay-o-1", BODY);
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue(PaymentProviderSimulator.REPLAYED_HEADER)).isEmpty();
    JsonNode charge = json.readTree(first.body());
    assertThat(charge.get("chargeId").asText()).startsWith("ch_");
    assertThat(charge.get("paymentId").asText()).isEqualTo("pay-o-1");
    assertThat(charge.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(charge.get("currency").asText()).isEqualTo("EUR");
    assertThat(charge.get("status").asText()).isEqualTo("succeeded");

    // Re-serialised by the client with other spacing and field order: still the same request.
    HttpResponse<String> replay =
        charge(
            "charge-pay-o-1",
            "{ \"currency\": \"EUR\", \"amountCents\": 2500, \"paymentId\": \"pay-o-1\" }");
    assertThat(replay.statusCode()).isEqualTo(200);
    assertThat(replay.headers().firstValue(PaymentProviderSimulator.REPLAYED_HEADER))
        .contains("true");
    assertThat(replay.body()).isEqualTo(first.body());

    assertThat(provider.ledger()).hasSize(1);
    LedgerEntry entry = provider.ledger().get(0);
    assertThat(entry.chargeId()).isEqualTo(charge.get("chargeId").asText());
    assertThat(entry.idempotencyKey()).isEqualTo("charge-pay-o-1");
    assertThat(entry.status()).isEqualTo(ChargeStatus.SUCCEEDED);
    assertThat(provider.webhookEvents()).hasSize(1);
  }

  @Test
  void theSameKeyWithOtherParametersIs422AndChargesNothing() throws Exception {
    assertThat(charge("k-1", BODY).statusCode()).isEqualTo(201);
    HttpResponse<String> reused = charge("k-1", BODY.replace("2500", "2600"));
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(json.readTree(reused.body()).get("error").asText())
        .isEqualTo("idempotency_key_reused");
    assertThat(provider.ledger()).hasSize(1);
    assertThat(provider.ledger().get(0).amountCents()).isEqualTo(2500);
  }

  @Test
  void aMissingBlankOrTooLongKeyIs400() throws Exception {
    HttpResponse<String> missing =
        send(
            HttpRequest.newBuilder(uri("/v1/charges"))
                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                .build());
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(json.readTree(missing.body()).get("error").asText())
        .isEqualTo("idempotency_key_missing");
    assertThat(charge(" ", BODY).statusCode()).isEqualTo(400);
    HttpResponse<String> tooLong = charge("k".repeat(256), BODY);
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(json.readTree(tooLong.body()).get("error").asText())
        .isEqualTo("idempotency_key_too_long");
    assertThat(charge("k".repeat(255), BODY).statusCode()).isEqualTo(201);
    assertThat(provider.ledger()).hasSize(1);
  }

  @Test
  void anInvalidBodyIs400AndLeavesTheKeyUsable() throws Exception {
    assertThat(
            charge("k-2", "{\"paymentId\":\"pay-1\",\"amountCents\":-5,\"currency\":\"EUR\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(
            charge("k-2", "{\"paymentId\":\"pay-1\",\"amountCents\":5,\"currency\":\"euro\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(
            charge(
                    "k-2",
                    "{\"paymentId\":\"pay-1\",\"amountCents\":5,\"currency\":\"EUR\",\"tip\":1}")
                .statusCode())
        .isEqualTo(400);
    assertThat(charge("k-2", "not json").statusCode()).isEqualTo(400);
    assertThat(provider.ledger()).isEmpty();
    assertThat(charge("k-2", BODY).statusCode()).isEqualTo(201);
  }

  @Test
  void sixteenConcurrentCallsWithOneKeyMakeOneCharge() throws Exception {
    int callers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<HttpResponse<String>>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return charge("charge-pay-race", BODY);
                }));
      }
      go.countDown();
      List<HttpResponse<String>> responses = new ArrayList<>();
      for (Future<HttpResponse<String>> call : calls) {
        responses.add(call.get());
      }
      assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
      assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(callers - 1);
      assertThat(responses).extracting(HttpResponse::body).containsOnly(responses.get(0).body());
    } finally {
      pool.shutdownNow();
    }
    assertThat(provider.ledger()).hasSize(1);
    assertThat(provider.webhookEvents()).hasSize(1);
  }

  @Test
  void failuresAreDecidedBySeedAndKeySoEveryReplayAndRunAgrees() throws Exception {
    List<String> statuses = new ArrayList<>();
    try (PaymentProviderSimulator flaky = simulatorWithHalfFailing(7);
        PaymentProviderSimulator sameSeed = simulatorWithHalfFailing(7)) {
      for (int i = 0; i < 40; i++) {
        String body = BODY.replace("pay-o-1", "pay-" + i);
        String status =
            json.readTree(charge(flaky, "key-" + i, body).body()).get("status").asText();
        statuses.add(status);
        assertThat(json.readTree(charge(flaky, "key-" + i, body).body()).get("status").asText())
            .isEqualTo(status);
        assertThat(json.readTree(charge(sameSeed, "key-" + i, body).body()).get("status").asText())
            .isEqualTo(status);
      }
      assertThat(statuses).contains("failed", "succeeded");
      for (int i = 0; i < 40; i++) {
        assertThat(flaky.outcomeFor("key-" + i).wireName()).isEqualTo(statuses.get(i));
      }
      assertThat(flaky.ledger()).extracting(LedgerEntry::status).contains(ChargeStatus.FAILED);
      assertThat(flaky.webhookEvents())
          .extracting(WebhookEvent::type)
          .contains("charge.failed", "charge.succeeded");
    }
  }

  @Test
  void theLedgerEndpointListsEveryCharge() throws Exception {
    charge("k-a", BODY);
    charge("k-b", BODY.replace("pay-o-1", "pay-o-2"));
    HttpResponse<String> ledger = send(HttpRequest.newBuilder(uri("/v1/ledger")).GET().build());
    assertThat(ledger.statusCode()).isEqualTo(200);
    JsonNode charges = json.readTree(ledger.body()).get("charges");
    assertThat(charges).hasSize(2);
    assertThat(charges.get(0).get("idempotencyKey").asText()).isEqualTo("k-a");
    assertThat(charges.get(1).get("paymentId").asText()).isEqualTo("pay-o-2");
    assertThat(charges.get(0).get("chargeId").asText())
        .isEqualTo(provider.ledger().get(0).chargeId());
    for (String field :
        List.of(
            "chargeId",
            "paymentId",
            "amountCents",
            "currency",
            "status",
            "idempotencyKey",
            "createdAt")) {
      assertThat(charges.get(0).has(field)).as(field).isTrue();
    }
  }

  @Test
  void anOutageAnswers503AndStoresNothing() throws Exception {
    provider.outage(true);
    assertThat(charge("k-out", BODY).statusCode()).isEqualTo(503);
    assertThat(provider.ledger()).isEmpty();
    provider.outage(false);
    assertThat(charge("k-out", BODY).statusCode()).isEqualTo(201);
  }

  @Test
  void unknownPathsAndMethodsAreRefused() throws Exception {
    assertThat(send(HttpRequest.newBuilder(uri("/v1/payouts")).GET().build()).statusCode())
        .isEqualTo(404);
    assertThat(send(HttpRequest.newBuilder(uri("/v1/charges")).GET().build()).statusCode())
        .isEqualTo(405);
    assertThat(
            send(HttpRequest.newBuilder(uri("/v1/ledger"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build())
                .statusCode())
        .isEqualTo(405);
  }

  private PaymentProviderSimulator simulatorWithHalfFailing(long seed) {
    return PaymentProviderSimulator.builder()
        .port(0)
        .webhookSecret("whsec_test")
        .failureShare(0.5)
        .seed(seed)
        .build()
        .start();
  }

  private HttpResponse<String> charge(String key, String body)
      throws IOException, InterruptedException {
    return charge(provider, key, body);
  }

  private HttpResponse<String> charge(PaymentProviderSimulator target, String key, String body)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(target.baseUrl().resolve("/v1/charges"))
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return provider.baseUrl().resolve(path);
  }
}
