/**
 * A payment provider simulator: {@code POST /v1/charges} and {@code POST /v1/refunds} honouring
 * {@code Idempotency-Key} the way Stripe does, a ledger of charges and refunds, and HMAC-signed
 * webhooks delivered at-least-once (duplicates, random delays, reordering, retries until a 2xx).
 * Runs in-process ({@link dev.inboxoutbox.provider.PaymentProviderSimulator#builder()}) or
 * standalone ({@code iox provider}). {@link dev.inboxoutbox.webhook.WebhookSignature} signs and
 * verifies the webhooks on both sides.
 */
package dev.inboxoutbox.provider;
