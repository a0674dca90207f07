package dev.inboxoutbox.payment;

import java.util.Optional;

/** A row of {@code payments} as read, with the version an update must name. */
public record Payment(
    String paymentId,
    String orderId,
    String customerId,
    long amountCents,
    String currency,
    PaymentStatus status,
    Optional<String> chargeId,
    Optional<String> refundId,
    int version) {}
