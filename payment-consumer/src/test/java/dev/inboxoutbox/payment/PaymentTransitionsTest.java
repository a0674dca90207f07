package dev.inboxoutbox.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.payment.PaymentTransitions.ChargeResult;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import dev.inboxoutbox.payment.PaymentTransitions.RefundResult;
import dev.inboxoutbox.payment.PaymentTransitions.Verdict;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PaymentTransitionsTest {

  private static final ChargeResult SUCCEEDED = new ChargeResult("ch_1", true, 2500, "EUR");
  private static final ChargeResult FAILED = new ChargeResult("ch_1", false, 2500, "EUR");

  @Test
  void onlyARequestedPaymentIsSentToTheProvider() {
    assertThat(PaymentTransitions.onChargeRequested(payment(PaymentStatus.REQUESTED, null)))
        .isEqualTo(Decision.apply(PaymentStatus.CHARGE_REQUESTED));
    for (PaymentStatus later :
        new PaymentStatus[] {
          PaymentStatus.CHARGE_REQUESTED, PaymentStatus.CAPTURED, PaymentStatus.FAILED
        }) {
      assertThat(PaymentTransitions.onChargeRequested(payment(later, "ch_1")).verdict())
          .as(later.name())
          .isEqualTo(Verdict.ALREADY_APPLIED);
    }
  }

  @Test
  void aResultSettlesAnOpenPaymentEvenWhenItOvertookTheCharger() {
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.CHARGE_REQUESTED, "ch_1"), SUCCEEDED))
        .isEqualTo(Decision.apply(PaymentStatus.CAPTURED));
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.CHARGE_REQUESTED, "ch_1"), FAILED))
        .isEqualTo(Decision.apply(PaymentStatus.FAILED));
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.REQUESTED, null), SUCCEEDED))
        .isEqualTo(Decision.apply(PaymentStatus.CAPTURED));
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.REQUESTED, null), FAILED))
        .isEqualTo(Decision.apply(PaymentStatus.FAILED));
  }

  @Test
  void theSameResultAgainIsAcknowledgedWithoutEffect() {
    assertThat(
            PaymentTransitions.onChargeResult(payment(PaymentStatus.CAPTURED, "ch_1"), SUCCEEDED))
        .isEqualTo(Decision.alreadyApplied());
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.FAILED, "ch_1"), FAILED))
        .isEqualTo(Decision.alreadyApplied());
  }

  @Test
  void aResultContradictingTheFinalStateIsRejected() {
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.CAPTURED, "ch_1"), FAILED))
        .isEqualTo(Decision.reject("payment_already_captured"));
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.FAILED, "ch_1"), SUCCEEDED))
        .isEqualTo(Decision.reject("payment_already_failed"));
  }

  @Test
  void aResultForAnotherChargeOrAmountIsRejected() {
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.CHARGE_REQUESTED, "ch_other"), SUCCEEDED))
        .isEqualTo(Decision.reject("charge_mismatch"));
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.CHARGE_REQUESTED, "ch_1"),
                new ChargeResult("ch_1", true, 2499, "EUR")))
        .isEqualTo(Decision.reject("amount_mismatch"));
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.CHARGE_REQUESTED, "ch_1"),
                new ChargeResult("ch_1", true, 2500, "USD")))
        .isEqualTo(Decision.reject("amount_mismatch"));
  }

  @Test
  void aCancelCallsOffAnUnsettledPaymentAndRefundsACapturedOne() {
    assertThat(PaymentTransitions.onCancel(payment(PaymentStatus.REQUESTED, null)))
        .isEqualTo(Decision.apply(PaymentStatus.CANCELLED));
    assertThat(PaymentTransitions.onCancel(payment(PaymentStatus.CHARGE_REQUESTED, "ch_1")))
        .isEqualTo(Decision.apply(PaymentStatus.CANCELLED));
    assertThat(PaymentTransitions.onCancel(payment(PaymentStatus.CAPTURED, "ch_1")))
        .isEqualTo(Decision.apply(PaymentStatus.REFUND_REQUESTED));
    for (PaymentStatus settled :
        new PaymentStatus[] {
          PaymentStatus.FAILED,
          PaymentStatus.CANCELLED,
          PaymentStatus.REFUND_REQUESTED,
          PaymentStatus.REFUNDED
        }) {
      assertThat(PaymentTransitions.onCancel(payment(settled, "ch_1")))
          .as(settled.name())
          .isEqualTo(Decision.alreadyApplied());
    }
  }

  @Test
  void aCancelledPaymentIsNeverSentAndAChargeThatWasOnItsWayIsRefunded() {
    assertThat(PaymentTransitions.onChargeRequested(payment(PaymentStatus.CANCELLED, null)))
        .isEqualTo(Decision.alreadyApplied());
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.CANCELLED, null), SUCCEEDED))
        .isEqualTo(Decision.apply(PaymentStatus.REFUND_REQUESTED));
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.CANCELLED, "ch_1"), FAILED))
        .isEqualTo(Decision.alreadyApplied());
    assertThat(
            PaymentTransitions.onChargeResult(
                payment(PaymentStatus.REFUND_REQUESTED, "ch_1"), SUCCEEDED))
        .isEqualTo(Decision.alreadyApplied());
    assertThat(PaymentTransitions.onChargeResult(payment(PaymentStatus.REFUNDED, "ch_1"), FAILED))
        .isEqualTo(Decision.reject("payment_already_captured"));
  }

  @Test
  void aRefundIsSentOnceAndSettledByItsWebhook() {
    RefundResult refunded = new RefundResult("re_1", "ch_1", 2500, "EUR");
    assertThat(
            PaymentTransitions.onRefundRequested(payment(PaymentStatus.REFUND_REQUESTED, "ch_1")))
        .isEqualTo(Decision.apply(PaymentStatus.REFUND_REQUESTED));
    Payment sent =
        new Payment(
            "pay-o-1",
            "o-1",
            "c-1",
            2500,
            "EUR",
            PaymentStatus.REFUND_REQUESTED,
            Optional.of("ch_1"),
            Optional.of("re_1"),
            4);
    assertThat(PaymentTransitions.onRefundRequested(sent)).isEqualTo(Decision.alreadyApplied());
    assertThat(PaymentTransitions.onRefundRequested(payment(PaymentStatus.CAPTURED, "ch_1")))
        .isEqualTo(Decision.reject("refund_not_requested"));
    assertThat(PaymentTransitions.onRefundResult(sent, refunded))
        .isEqualTo(Decision.apply(PaymentStatus.REFUNDED));
    assertThat(PaymentTransitions.onRefundResult(payment(PaymentStatus.REFUNDED, "ch_1"), refunded))
        .isEqualTo(Decision.alreadyApplied());
    assertThat(PaymentTransitions.onRefundResult(payment(PaymentStatus.CAPTURED, "ch_1"), refunded))
        .isEqualTo(Decision.reject("refund_not_requested"));
    assertThat(
            PaymentTransitions.onRefundResult(sent, new RefundResult("re_2", "ch_1", 2500, "EUR")))
        .isEqualTo(Decision.reject("refund_mismatch"));
    assertThat(
            PaymentTransitions.onRefundResult(sent, new RefundResult("re_1", "ch_2", 2500, "EUR")))
        .isEqualTo(Decision.reject("charge_mismatch"));
  }

  private static Payment payment(PaymentStatus status, String chargeId) {
    return new Payment(
        "pay-o-1",
        "o-1",
        "c-1",
        2500,
        "EUR",
        status,
        Optional.ofNullable(chargeId),
        Optional.empty(),
        3);
  }
}
