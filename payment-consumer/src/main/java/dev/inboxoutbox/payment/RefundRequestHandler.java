package dev.inboxoutbox.payment;

import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code RefundRequested} -> {@code POST /v1/refunds} with the payment's refund key {@code
 * refund-<paymentId>}, then the provider's refund id is recorded; the refund's webhook ends the
 * payment as {@code REFUNDED}. The key makes every repeat of the call the same refund at the
 * provider ({@link ProviderRequestHandler}).
 */
final class RefundRequestHandler extends ProviderRequestHandler<RefundRequestHandler.Refund> {

  static final String OPERATION = "payment-refunder";

  /** What the event asks to refund. */
  record Refund(String chargeId, long amountCents) {}

  private final Payments payments;
  private final ProviderClient provider;

  RefundRequestHandler(Payments payments, PaymentEvents events, ProviderClient provider) {
    super(PaymentEvents.REFUND_REQUESTED, "refund", "refund key", payments, events);
    this.payments = payments;
    this.provider = provider;
  }

  @Override
  Refund request(JsonNode payload) {
    return new Refund(
        Payloads.text(payload, "chargeId"), Payloads.positiveCents(payload, "amountCents"));
  }

  @Override
  String idempotencyKey(String paymentId) {
    return PaymentEvents.refundIdempotencyKey(paymentId);
  }

  @Override
  Optional<String> mismatch(Payment payment, Refund refund) {
    if (payment.amountCents() != refund.amountCents()
        || !payment.chargeId().map(refund.chargeId()::equals).orElse(false)) {
      return Optional.of("refund_mismatch");
    }
    return Optional.empty();
  }

  @Override
  Decision decide(Payment payment) {
    return PaymentTransitions.onRefundRequested(payment);
  }

  @Override
  String callProvider(String idempotencyKey, String paymentId, Refund refund) {
    return provider.refund(idempotencyKey, refund.chargeId(), refund.amountCents()).refundId();
  }

  @Override
  boolean record(Payment read, PaymentStatus next, String refundId) {
    return payments.recordRefund(read, next, refundId);
  }
}
