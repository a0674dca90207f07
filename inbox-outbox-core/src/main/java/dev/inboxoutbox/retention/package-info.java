/**
 * Retention in two phases. Outcome bodies go first ({@code outcome_expires_at}, default 24 h): they
 * are the bulky, possibly personal part. Key rows stay longer ({@code expires_at}, default 7 days),
 * so a late repeat is still recognised as a duplicate after its body is gone. Messages older than
 * the key TTL are the consumer's too-old guard's business. Start with {@link
 * dev.inboxoutbox.retention.RetentionCleaner}.
 */
package dev.inboxoutbox.retention;
