package dev.inboxoutbox.provider;

/**
 * Webhook delivery counters.
 *
 * @param events events published (one per charge)
 * @param duplicates extra copies scheduled on purpose (the at-least-once duplicates)
 * @param attempts HTTP attempts made, successful or not
 * @param deliveries attempts answered with a 2xx
 * @param retries attempts that failed (non-2xx, refused, timed out) and were rescheduled
 * @param pending copies not yet delivered
 */
public record WebhookStats(
    long events, long duplicates, long attempts, long deliveries, long retries, long pending) {}
