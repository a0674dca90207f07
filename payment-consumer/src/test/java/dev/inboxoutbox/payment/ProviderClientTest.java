package dev.inboxoutbox.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.consumer.RetryLaterException;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import io.micrometer.observation.ObservationRegistry;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The client against the real simulator over HTTP (no database, no Kafka). */
class ProviderClientTest {

  private PaymentProviderSimulator provider;
  private ProviderClient client;

  @BeforeEach
  void start() {
    provider =
        PaymentProviderSimulator.builder().port(0).webhookSecret("whsec_client").build().start();
    client = clientFor(provider.baseUrl());
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void theSameKeyChargesOnceAndReplaysTheCharge() throws Exception {
    ProviderClient.Charge first = client.charge("charge-pay-1", "pay-1", 2500, "EUR");
    ProviderClient.Charge again = client.charge("charge-pay-1", "pay-1", 2500, "EUR");
    assertThat(first.chargeId()).startsWith("ch_");
    assertThat(first.status()).isEqualTo("succeeded");
    assertThat(first.replayed()).isFalse();
    assertThat(again.chargeId()).isEqualTo(first.chargeId());
    assertThat(again.replayed()).isTrue();
    assertThat(provider.ledgerFor("pay-1")).hasSize(1);
  }

  @Test
  void anOutageIsRetriedThenReportedAsTransient() {
    provider.outage(true);
    assertThatThrownBy(() -> client.charge("charge-pay-2", "pay-2", 100, "EUR"))
        .isInstanceOf(ProviderUnavailableException.class)
        .isInstanceOf(RetryLaterException.class)
        .hasMessageContaining("after 3 attempts")
        .hasMessageContaining("503");
    assertThat(provider.ledger()).isEmpty();
  }

  @Test
  void anUnreachableProviderIsTransientToo() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    ProviderClient unreachable = clientFor(URI.create("http://localhost:" + closedPort));
    assertThatThrownBy(() -> unreachable.charge("charge-pay-3", "pay-3", 100, "EUR"))
        .isInstanceOf(ProviderUnavailableException.class)
        .hasMessageContaining("ConnectException");
  }

  @Test
  void aReusedKeyIsRefusedForGood() throws Exception {
    client.charge("charge-pay-4", "pay-4", 100, "EUR");
    assertThatThrownBy(() -> client.charge("charge-pay-4", "pay-4", 200, "EUR"))
        .isInstanceOfSatisfying(
            ProviderRefusedException.class, refused -> assertThat(refused.status()).isEqualTo(422));
  }

  @Test
  void theSameRefundKeyRefundsOnceAndAFailedOrUnknownChargeIsRefusedForGood() throws Exception {
    ProviderClient.Charge charge = client.charge("charge-pay-5", "pay-5", 700, "EUR");
    ProviderClient.Refund first = client.refund("refund-pay-5", charge.chargeId(), 700);
    ProviderClient.Refund again = client.refund("refund-pay-5", charge.chargeId(), 700);
    assertThat(first.refundId()).startsWith("re_");
    assertThat(first.replayed()).isFalse();
    assertThat(again.refundId()).isEqualTo(first.refundId());
    assertThat(again.replayed()).isTrue();
    assertThat(provider.refundsFor("pay-5")).hasSize(1);
    assertThatThrownBy(() -> client.refund("refund-pay-6", "ch_unknown", 700))
        .isInstanceOfSatisfying(
            ProviderRefusedException.class, refused -> assertThat(refused.status()).isEqualTo(404));
    assertThatThrownBy(() -> client.refund("refund-pay-5b", charge.chargeId(), 1))
        .isInstanceOfSatisfying(
            ProviderRefusedException.class, refused -> assertThat(refused.status()).isEqualTo(400))
        .hasMessageContaining("refund_exceeds_charge");
    provider.outage(true);
    assertThatThrownBy(() -> client.refund("refund-pay-7", charge.chargeId(), 1))
        .isInstanceOf(ProviderUnavailableException.class)
        .hasMessageContaining("refund refund-pay-7");
  }

  private static ProviderClient clientFor(URI baseUrl) {
    return new ProviderClient(
        JsonMapper.shared(),
        baseUrl,
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        3,
        Duration.ofMillis(20),
        ObservationRegistry.NOOP);
  }
}
