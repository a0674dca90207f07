package dev.inboxoutbox.payment;

/**
 * The payment state machine as pure decisions, so every late, repeated or contradictory input has
 * one answer that tests can pin:
 *
 * <pre>
 * REQUESTED --charge sent--> CHARGE_REQUESTED --charge.succeeded--> CAPTURED
 *     |                              \--------charge.failed------> FAILED
 *     \--charge.succeeded / charge.failed (webhook overtook the charger)--> CAPTURED / FAILED
 *
 * the order is cancelled (PaymentCancelRequested):
 * REQUESTED, CHARGE_REQUESTED --cancel--> CANCELLED --charge.succeeded--> REFUND_REQUESTED
 * CAPTURED --cancel--> REFUND_REQUESTED --refund sent, refund.succeeded--> REFUNDED
 * </pre>
 *
 * A cancelled payment is never sent to the provider; if the charge was on its way already, its
 * {@code charge.succeeded} (every charge the provider makes announces itself) turns into a refund,
 * and a {@code charge.failed} leaves nothing to give back.
 *
 * <p>A result that was already applied is acknowledged again without effect; a result that
 * contradicts the final state (or names another charge or amount) is a business rejection, stored
 * in the inbox for anyone who asks, never applied.
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

  /** A refund the provider made, as a webhook reports it. */
  record RefundResult(String refundId, String chargeId, long amountCents, String currency) {}

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
    switch (payment.status()) {
      case CANCELLED:
        // The charge was on its way when the order was cancelled: money taken goes back.
        return result.succeeded()
            ? Decision.apply(PaymentStatus.REFUND_REQUESTED)
            : Decision.alreadyApplied();
      case REFUND_REQUESTED:
      case REFUNDED:
        return result.succeeded()
            ? Decision.alreadyApplied()
            : Decision.reject("payment_already_captured");
      default:
        break;
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

  /**
   * The order was cancelled. Before the charge is known to have succeeded the payment is called off
   * (no charge is sent any more, a late success is refunded); a captured payment is refunded; a
   * failed one took nothing.
   */
  static Decision onCancel(Payment payment) {
    switch (payment.status()) {
      case REQUESTED:
      case CHARGE_REQUESTED:
        return Decision.apply(PaymentStatus.CANCELLED);
      case CAPTURED:
        return Decision.apply(PaymentStatus.REFUND_REQUESTED);
      default:
        return Decision.alreadyApplied();
    }
  }

  /** Whether the refunder still has to call the provider for this payment. */
  static Decision onRefundRequested(Payment payment) {
    if (payment.status() == PaymentStatus.REFUND_REQUESTED && payment.refundId().isEmpty()) {
      return Decision.apply(PaymentStatus.REFUND_REQUESTED);
    }
    if (payment.status() == PaymentStatus.REFUND_REQUESTED
        || payment.status() == PaymentStatus.REFUNDED) {
      // Sent already, or the refund's webhook overtook the refunder: no second call.
      return Decision.alreadyApplied();
    }
    return Decision.reject("refund_not_requested");
  }

  static Decision onRefundResult(Payment payment, RefundResult result) {
    if (payment.amountCents() != result.amountCents()
        || !payment.currency().equals(result.currency())) {
      return Decision.reject("amount_mismatch");
    }
    if (payment.chargeId().isEmpty() || !payment.chargeId().get().equals(result.chargeId())) {
      return Decision.reject("charge_mismatch");
    }
    if (payment.refundId().isPresent() && !payment.refundId().get().equals(result.refundId())) {
      return Decision.reject("refund_mismatch");
    }
    if (payment.status() == PaymentStatus.REFUNDED) {
      return Decision.alreadyApplied();
    }
    if (payment.status() != PaymentStatus.REFUND_REQUESTED) {
      return Decision.reject("refund_not_requested");
    }
    return Decision.apply(PaymentStatus.REFUNDED);
  }
}
