package dev.inboxoutbox.payment;

import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * {@code ChargeRequested} -> {@code POST /v1/charges} with the payment's idempotency key {@code
 * charge-<paymentId>}, then the payment is {@code CHARGE_REQUESTED} with the provider's charge id.
 * The provider answers every repeat of the call with the charge it already made ({@link
 * ProviderRequestHandler}).
 */
final class ChargeRequestHandler extends ProviderRequestHandler<ChargeRequestHandler.Charge> {

  static final String OPERATION = "payment-charger";

  /** What the event asks to charge. */
  record Charge(long amountCents, String currency) {}

  private final Payments payments;
  private final ProviderClient provider;

  ChargeRequestHandler(Payments payments, PaymentEvents events, ProviderClient provider) {
    super(PaymentEvents.CHARGE_REQUESTED, "charge", "key", payments, events);
    this.payments = payments;
    this.provider = provider;
  }

  @Override
  Charge request(JsonNode payload) {
    return new Charge(
        Payloads.positiveCents(payload, "amountCents"), Payloads.currency(payload, "currency"));
  }

  @Override
  String idempotencyKey(String paymentId) {
    return PaymentEvents.chargeIdempotencyKey(paymentId);
  }

  @Override
  Optional<String> mismatch(Payment payment, Charge charge) {
    if (payment.amountCents() != charge.amountCents()
        || !payment.currency().equals(charge.currency())) {
      return Optional.of("amount_mismatch");
    }
    return Optional.empty();
  }

  @Override
  Decision decide(Payment payment) {
    return PaymentTransitions.onChargeRequested(payment);
  }

  @Override
  String callProvider(String idempotencyKey, String paymentId, Charge charge) {
    return provider
        .charge(idempotencyKey, paymentId, charge.amountCents(), charge.currency())
        .chargeId();
  }

  @Override
  boolean record(Payment read, PaymentStatus next, String chargeId) {
    return payments.update(read, next, chargeId, null);
  }
}
