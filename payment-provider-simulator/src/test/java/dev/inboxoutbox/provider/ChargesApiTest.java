package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.ApiClient.concurrently;
import static dev.inboxoutbox.provider.ApiClient.error;
import static dev.inboxoutbox.provider.ApiClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChargesApiTest extends SimulatorApiTestBase {

  private static final String BODY =
      "{\"paymentId\":\"pay-o-1\",\"amountCents\":2500,\"currency\":\"EUR\"}";

  @Test
  void firstCallChargesAndTheSameCallAgainReplaysTheStoredResponse() throws Exception {
    HttpResponse<String> first = api.charge("charge-pay-o-1", BODY);
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue(PaymentProviderSimulator.REPLAYED_HEADER)).isEmpty();
    JsonNode charge = json(first);
    assertThat(charge.get("chargeId").asText()).startsWith("ch_");
    assertThat(charge.get("paymentId").asText()).isEqualTo("pay-o-1");
    assertThat(charge.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(charge.get("currency").asText()).isEqualTo("EUR");
    assertThat(charge.get("status").asText()).isEqualTo("succeeded");

    // Re-serialised by the client with other spacing and field order: still the same request.
    HttpResponse<String> replay =
        api.charge(
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
    assertThat(api.charge("k-1", BODY).statusCode()).isEqualTo(201);
    HttpResponse<String> reused = api.charge("k-1", BODY.replace("2500", "2600"));
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(error(reused)).isEqualTo("idempotency_key_reused");
    assertThat(provider.ledger()).hasSize(1);
    assertThat(provider.ledger().get(0).amountCents()).isEqualTo(2500);
  }

  @Test
  void aMissingBlankOrTooLongKeyIs400() throws Exception {
    HttpResponse<String> missing = api.post(ChargesEndpoint.PATH, null, BODY);
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(error(missing)).isEqualTo("idempotency_key_missing");
    assertThat(api.charge(" ", BODY).statusCode()).isEqualTo(400);
    HttpResponse<String> tooLong = api.charge("k".repeat(256), BODY);
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(error(tooLong)).isEqualTo("idempotency_key_too_long");
    assertThat(api.charge("k".repeat(255), BODY).statusCode()).isEqualTo(201);
    assertThat(provider.ledger()).hasSize(1);
  }

  @Test
  void anInvalidBodyIs400AndLeavesTheKeyUsable() throws Exception {
    assertThat(
            api.charge("k-2", "{\"paymentId\":\"pay-1\",\"amountCents\":-5,\"currency\":\"EUR\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(
            api.charge("k-2", "{\"paymentId\":\"pay-1\",\"amountCents\":5,\"currency\":\"euro\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(
            api.charge(
                    "k-2",
                    "{\"paymentId\":\"pay-1\",\"amountCents\":5,\"currency\":\"EUR\",\"tip\":1}")
                .statusCode())
        .isEqualTo(400);
    assertThat(api.charge("k-2", "not json").statusCode()).isEqualTo(400);
    assertThat(provider.ledger()).isEmpty();
    assertThat(api.charge("k-2", BODY).statusCode()).isEqualTo(201);
  }

  @Test
  void sixteenConcurrentCallsWithOneKeyMakeOneCharge() throws Exception {
    int callers = 16;
    List<HttpResponse<String>> responses =
        concurrently(callers, () -> api.charge("charge-pay-race", BODY));
    assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
    assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(callers - 1);
    assertThat(responses).extracting(HttpResponse::body).containsOnly(responses.get(0).body());
    assertThat(provider.ledger()).hasSize(1);
    assertThat(provider.webhookEvents()).hasSize(1);
  }

  @Test
  void failuresAreDecidedBySeedAndKeySoEveryReplayAndRunAgrees() throws Exception {
    List<String> statuses = new ArrayList<>();
    try (PaymentProviderSimulator flaky = simulatorWithHalfFailing(7);
        PaymentProviderSimulator sameSeed = simulatorWithHalfFailing(7)) {
      ApiClient flakyApi = new ApiClient(flaky);
      ApiClient sameSeedApi = new ApiClient(sameSeed);
      for (int i = 0; i < 40; i++) {
        String body = BODY.replace("pay-o-1", "pay-" + i);
        String status = json(flakyApi.charge("key-" + i, body)).get("status").asText();
        statuses.add(status);
        assertThat(json(flakyApi.charge("key-" + i, body)).get("status").asText())
            .isEqualTo(status);
        assertThat(json(sameSeedApi.charge("key-" + i, body)).get("status").asText())
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
    api.charge("k-a", BODY);
    api.charge("k-b", BODY.replace("pay-o-1", "pay-o-2"));
    HttpResponse<String> ledger = api.get(LedgerEndpoint.PATH);
    assertThat(ledger.statusCode()).isEqualTo(200);
    JsonNode charges = json(ledger).get("charges");
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
    assertThat(api.charge("k-out", BODY).statusCode()).isEqualTo(503);
    assertThat(provider.ledger()).isEmpty();
    provider.outage(false);
    assertThat(api.charge("k-out", BODY).statusCode()).isEqualTo(201);
  }

  @Test
  void unknownPathsAndMethodsAreRefused() throws Exception {
    assertThat(api.get("/v1/payouts").statusCode()).isEqualTo(404);
    assertThat(api.get(ChargesEndpoint.PATH).statusCode()).isEqualTo(405);
    assertThat(api.post(LedgerEndpoint.PATH, null, "").statusCode()).isEqualTo(405);
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
}
