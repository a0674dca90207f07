package dev.inboxoutbox.payment;

/**
 * The payment state machine as pure decisions, so every late, repeated or contradictory input has
 * one answer that tests can pin:
 *
 * <pre>
 * REQUESTED --charge sent--> CHARGE_REQUESTED --charge.succeeded--> CAPTURED
 *     |                              \--------charge.failed------> FAILED
 *     \--charge.succeeded / charge.failed (webhook overtook the charger)--> CAPTURED / FAILED
 * </pre>
 *
 * A result that was already applied is acknowledged again without effect; a result that contradicts
 * the final state (or names another charge or amount) is a business rejection, stored in the inbox
 * for anyone who asks, never applied.
 */
final class PaymentTransitions {

  private PaymentTransitions() {}

  /** What to do with an input. */
  enum Verdict {
    /** Move to {@link Decision#next()} and emit what the transition emits. */
    APPLY,
    /** Already there: succeed without changing or emitting anything. */
    ALREADY_APPLIED,
    /** Contradicts the payment: store {@link Decision#reason()} as a rejection, change nothing. */
    REJECT
  }

  record Decision(Verdict verdict, PaymentStatus next, String reason) {

    static Decision apply(PaymentStatus next) {
      return new Decision(Verdict.APPLY, next, null);
    }

    static Decision alreadyApplied() {
      return new Decision(Verdict.ALREADY_APPLIED, null, null);
    }

    static Decision reject(String reason) {
      return new Decision(Verdict.REJECT, null, reason);
    }
  }

  /** The provider's verdict on a charge, as a webhook reports it. */
  record ChargeResult(String chargeId, boolean succeeded, long amountCents, String currency) {}

  /** Whether the charger still has to call the provider for this payment. */
  static Decision onChargeRequested(Payment payment) {
    if (payment.status() == PaymentStatus.REQUESTED) {
      return Decision.apply(PaymentStatus.CHARGE_REQUESTED);
    }
    // Charged already, or a webhook overtook the charger and settled the payment: no second call.
    return Decision.alreadyApplied();
  }

  static Decision onChargeResult(Payment payment, ChargeResult result) {
    if (payment.amountCents() != result.amountCents()
        || !payment.currency().equals(result.currency())) {
      return Decision.reject("amount_mismatch");
    }
    if (payment.chargeId().isPresent() && !payment.chargeId().get().equals(result.chargeId())) {
      return Decision.reject("charge_mismatch");
    }
    PaymentStatus wanted = result.succeeded() ? PaymentStatus.CAPTURED : PaymentStatus.FAILED;
    if (payment.status() == wanted) {
      return Decision.alreadyApplied();
    }
    if (payment.status().isFinal()) {
      return Decision.reject(
          payment.status() == PaymentStatus.CAPTURED
              ? "payment_already_captured"
              : "payment_already_failed");
    }
    return Decision.apply(wanted);
  }
}
