package dev.inboxoutbox.provider;

import java.time.Instant;

/**
 * One charge the provider made. The ledger is the provider's truth: verifiers compare it with the
 * payments a service believes it made (one entry per payment, never two).
 */
public record LedgerEntry(
    String chargeId,
    String paymentId,
    long amountCents,
    String currency,
    ChargeStatus status,
    String idempotencyKey,
    Instant createdAt) {}
