package dev.inboxoutbox.chaos.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog.Fault;
import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunFiguresTest {

  @Test
  void recoveryIsTheTimeFromAFaultsEndToTheFirstOrderMovingAtOrAfterIt() {
    List<FaultRecovery> rows =
        RunFigures.recoveries(
            List.of(
                new Fault(Kind.NETWORK_BLACKHOLE, "postgres", 8_000, Optional.of(12_000L)),
                new Fault(Kind.NETWORK_RESET, "postgres", 20_000, Optional.of(20_000L))),
            new long[] {7_900, 11_000, 12_350, 12_400, 20_000, 20_100});

    assertThat(rows.get(0))
        .isEqualTo(new FaultRecovery(Kind.NETWORK_BLACKHOLE, "postgres", 8_000, 12_000L, 350L));
    assertThat(rows.get(1).ordersMovingAgainAfterMillis()).isZero();
  }

  @Test
  void aFaultAfterWhichNoOrderMovedHasNoRecoveryAndAnOngoingFaultNoEnd() {
    List<FaultRecovery> rows =
        RunFigures.recoveries(
            List.of(
                new Fault(Kind.NETWORK_LATENCY, "postgres", 30_000, Optional.of(34_000L)),
                new Fault(Kind.POSTGRES_CRASH, "postgres", 40_000, Optional.empty())),
            new long[] {1_000, 2_000});

    assertThat(rows.get(0).ordersMovingAgainAfterMillis()).isNull();
    assertThat(rows.get(1).endMillis()).isNull();
    assertThat(rows.get(1).ordersMovingAgainAfterMillis()).isNull();
  }

  @Test
  void percentilesAreNearestRankOverTheValues() {
    long[] values = new long[100];
    for (int i = 0; i < 100; i++) {
      values[i] = 100 - i; // 100..1, unsorted on purpose
    }
    assertThat(RunFigures.percentiles(values))
        .containsExactly(
            Map.entry("count", 100L),
            Map.entry("p50", 50L),
            Map.entry("p90", 90L),
            Map.entry("p99", 99L),
            Map.entry("max", 100L));
    assertThat(RunFigures.percentiles(new long[0])).containsExactly(Map.entry("count", 0L));
  }

  @Test
  void duplicatesGoToTheirKnownSourceFirstAndTheRestToKafkaRedelivery() {
    Map<String, Long> sources =
        RunFigures.duplicateSources(
            Map.of(
                "order-commands", 120L,
                "order-payments", 7L,
                "payment-requests", 3L,
                "payment-charger", 0L,
                "payment-webhooks", 40L),
            100,
            Map.of(
                "outbox.event.payment-result", 5L,
                "outbox.event.payment", 10L,
                "outbox.event.charge", 0L),
            45);

    assertThat(sources)
        .containsEntry("clientRetry", 100L)
        .containsEntry("relayResend", 5L + 3L)
        .containsEntry("webhookDuplicate", 40L)
        .containsEntry("kafkaRedelivery", 20L + 2L)
        .containsEntry("total", 170L);
  }
}
