package dev.inboxoutbox.payment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.payment.PaymentTransitions.ChargeResult;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
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

  private static Payment payment(PaymentStatus status, String chargeId) {
    return new Payment(
        "pay-o-1", "o-1", "c-1", 2500, "EUR", status, Optional.ofNullable(chargeId), 3);
  }
}
