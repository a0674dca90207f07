package dev.inboxoutbox.chaos.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.provider.ChargeStatus;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.RefundEntry;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CancelledMoneyTest {

  private static final Set<String> CANCELLED = Set.of("o-refunded", "o-never", "o-failed");

  @Test
  void cancelledOrdersRefundedNeverChargedOrFailedKeepNothing() {
    List<LedgerEntry> charges =
        List.of(
            charge("o-refunded", ChargeStatus.SUCCEEDED),
            charge("o-failed", ChargeStatus.FAILED),
            charge("o-paid", ChargeStatus.SUCCEEDED));
    List<RefundEntry> refunds = List.of(refund("o-refunded", "re_1"));

    Invariant kept = CancelledMoney.noCancelledOrderKeepsACapture(CANCELLED, charges, refunds);
    assertThat(kept.passed()).as(kept.detail()).isTrue();
    assertThat(kept.checked()).isEqualTo(3);
    assertThat(kept.detail()).contains("1 were refunded, 2 were never charged");
    Invariant once = CancelledMoney.everyRefundOnceForACapture(CANCELLED, charges, refunds);
    assertThat(once.passed()).as(once.detail()).isTrue();
  }

  /** The negative control's effect: a captured charge of a cancelled order nobody refunded. */
  @Test
  void aCancelledOrderWhoseCaptureWasNotRefundedIsAViolation() {
    Invariant kept =
        CancelledMoney.noCancelledOrderKeepsACapture(
            CANCELLED, List.of(charge("o-refunded", ChargeStatus.SUCCEEDED)), List.of());
    assertThat(kept.passed()).isFalse();
    assertThat(kept.violations()).isEqualTo(1);
    assertThat(kept.detail()).startsWith("1 cancelled orders keep captured money");
  }

  @Test
  void aSecondRefundARefundWithoutACaptureAndARefundOfAPaidOrderAreViolations() {
    List<LedgerEntry> charges =
        List.of(
            charge("o-refunded", ChargeStatus.SUCCEEDED),
            charge("o-failed", ChargeStatus.FAILED),
            charge("o-paid", ChargeStatus.SUCCEEDED));
    List<RefundEntry> refunds =
        List.of(
            refund("o-refunded", "re_1"),
            refund("o-refunded", "re_2"),
            refund("o-failed", "re_3"),
            refund("o-paid", "re_4"));

    Invariant once = CancelledMoney.everyRefundOnceForACapture(CANCELLED, charges, refunds);
    assertThat(once.passed()).isFalse();
    assertThat(once.violations()).isEqualTo(3);
    assertThat(once.detail())
        .isEqualTo(
            "1 payments refunded more than once, 1 refunds without a succeeded charge,"
                + " 1 refunds of orders not cancelled, 4 refunds");
  }

  private static LedgerEntry charge(String orderId, ChargeStatus status) {
    return new LedgerEntry(
        "ch_" + orderId,
        "pay-" + orderId,
        2500,
        "EUR",
        status,
        "charge-pay-" + orderId,
        Instant.EPOCH);
  }

  private static RefundEntry refund(String orderId, String refundId) {
    return new RefundEntry(
        refundId,
        "ch_" + orderId,
        "pay-" + orderId,
        2500,
        "EUR",
        "refund-pay-" + orderId,
        Instant.EPOCH);
  }
}
