package dev.inboxoutbox.provider;

import static dev.inboxoutbox.provider.ApiClient.concurrently;
import static dev.inboxoutbox.provider.ApiClient.error;
import static dev.inboxoutbox.provider.ApiClient.json;
import static dev.inboxoutbox.provider.ApiClient.refundBody;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefundsApiTest extends SimulatorApiTestBase {

  @Test
  void aRefundGivesTheChargeBackOnceAndTheSameCallAgainReplaysIt() throws Exception {
    String chargeId = charge("pay-o-1", 2500);
    HttpResponse<String> first = api.refund("refund-pay-o-1", refundBody(chargeId, 2500));
    assertThat(first.statusCode()).isEqualTo(201);
    JsonNode refund = json(first);
    assertThat(refund.get("refundId").asText()).startsWith("re_");
    assertThat(refund.get("chargeId").asText()).isEqualTo(chargeId);
    assertThat(refund.get("paymentId").asText()).isEqualTo("pay-o-1");
    assertThat(refund.get("amountCents").asLong()).isEqualTo(2500);
    assertThat(refund.get("currency").asText()).isEqualTo("EUR");
    assertThat(refund.get("status").asText()).isEqualTo("succeeded");

    HttpResponse<String> replay =
        api.refund(
            "refund-pay-o-1", "{ \"amountCents\": 2500, \"chargeId\": \"" + chargeId + "\" }");
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
    JsonNode data = json(refunded.body()).get("data");
    assertThat(refunded.paymentId()).isEqualTo("pay-o-1");
    assertThat(data.get("refundId").asText()).isEqualTo(entry.refundId());
    assertThat(data.get("chargeId").asText()).isEqualTo(chargeId);
    assertThat(data.get("amountCents").asLong()).isEqualTo(2500);
  }

  @Test
  void aSecondKeyCannotRefundWhatTheFirstGaveBack() throws Exception {
    String chargeId = charge("pay-o-2", 2500);
    assertThat(api.refund("r-1", refundBody(chargeId, 1000)).statusCode()).isEqualTo(201);
    assertThat(api.refund("r-2", refundBody(chargeId, 1500)).statusCode()).isEqualTo(201);
    HttpResponse<String> beyond = api.refund("r-3", refundBody(chargeId, 1));
    assertThat(beyond.statusCode()).isEqualTo(400);
    assertThat(error(beyond)).isEqualTo("refund_exceeds_charge");
    assertThat(provider.refundsFor("pay-o-2"))
        .extracting(RefundEntry::amountCents)
        .containsExactly(1000L, 1500L);
  }

  @Test
  void unknownOrFailedChargesAndReusedKeysAreRefused() throws Exception {
    HttpResponse<String> unknown = api.refund("r-x", refundBody("ch_nope", 100));
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(error(unknown)).isEqualTo("no_such_charge");

    try (PaymentProviderSimulator failing =
        PaymentProviderSimulator.builder()
            .port(0)
            .webhookSecret("whsec_test")
            .failureShare(1.0)
            .build()
            .start()) {
      ApiClient failingApi = new ApiClient(failing);
      String failedCharge = failingApi.chargeId("charge-pay-f", "pay-f", 700);
      HttpResponse<String> notRefundable = failingApi.refund("r-f", refundBody(failedCharge, 700));
      assertThat(notRefundable.statusCode()).isEqualTo(400);
      assertThat(error(notRefundable)).isEqualTo("charge_not_refundable");
      assertThat(failing.refunds()).isEmpty();
    }

    String chargeId = charge("pay-o-3", 900);
    assertThat(api.refund("r-3", refundBody(chargeId, 400)).statusCode()).isEqualTo(201);
    HttpResponse<String> reused = api.refund("r-3", refundBody(chargeId, 500));
    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(error(reused)).isEqualTo("idempotency_key_reused");
    assertThat(api.refund("r-bad", "{\"chargeId\":\"" + chargeId + "\"}").statusCode())
        .isEqualTo(400);
    assertThat(
            api.refund("r-bad", "{\"chargeId\":\"" + chargeId + "\",\"amountCents\":1,\"x\":1}")
                .statusCode())
        .isEqualTo(400);
    assertThat(api.refund(null, refundBody(chargeId, 1)).statusCode()).isEqualTo(400);
    assertThat(provider.refunds()).hasSize(1);
  }

  @Test
  void sixteenConcurrentCallsWithOneKeyRefundOnce() throws Exception {
    String chargeId = charge("pay-race", 2500);
    int callers = 16;
    List<HttpResponse<String>> responses =
        concurrently(callers, () -> api.refund("refund-pay-race", refundBody(chargeId, 2500)));
    assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
    assertThat(responses).filteredOn(r -> r.statusCode() == 200).hasSize(callers - 1);
    assertThat(provider.refunds()).hasSize(1);
  }

  @Test
  void theLedgerListsRefundsBesideChargesAndAnOutageRefusesThem() throws Exception {
    String chargeId = charge("pay-o-4", 1200);
    provider.outage(true);
    assertThat(api.refund("refund-pay-o-4", refundBody(chargeId, 1200)).statusCode())
        .isEqualTo(503);
    assertThat(provider.refunds()).isEmpty();
    provider.outage(false);
    assertThat(api.refund("refund-pay-o-4", refundBody(chargeId, 1200)).statusCode())
        .isEqualTo(201);

    JsonNode ledger = json(api.get(LedgerEndpoint.PATH));
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

  /** A charge of the payment under its own key; the provider's charge id. */
  private String charge(String paymentId, long amountCents) throws Exception {
    return api.chargeId("charge-" + paymentId, paymentId, amountCents);
  }
}
