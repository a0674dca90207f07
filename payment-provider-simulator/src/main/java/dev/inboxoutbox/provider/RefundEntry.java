package dev.inboxoutbox.provider;

import java.time.Instant;

/**
 * One refund the provider made, of the charge {@code chargeId} (of payment {@code paymentId}). With
 * the charges, the provider's truth about money: a verifier holds it to the orders a service
 * cancelled (each captured charge of a cancelled order refunded once, nothing else refunded).
 */
public record RefundEntry(
    String refundId,
    String chargeId,
    String paymentId,
    long amountCents,
    String currency,
    String idempotencyKey,
    Instant createdAt) {}
