/**
 * The contract between the payment provider and its webhook receiver: how a webhook body is signed
 * and verified ({@link dev.inboxoutbox.webhook.WebhookSignature}). Both sides depend on it, neither
 * on the other.
 */
package dev.inboxoutbox.webhook;
