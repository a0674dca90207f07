/**
 * Retention: removing what the inbox and the outbox no longer need, without ever holding up a
 * consumer.
 *
 * <p>An inbox row expires in two phases, both stamped on the row at claim time from its scope's
 * {@link dev.inboxoutbox.inbox.Inbox.Retention}:
 *
 * <ol>
 *   <li><b>The outcome body</b> goes at {@code outcome_expires_at} (default 24 h): it is the bulky,
 *       possibly personal part. The row stays, with {@code outcome_body = NULL} and {@code
 *       outcome_pruned_at} set.
 *   <li><b>The key row</b> goes at {@code expires_at} (default 7 days). Keys outlive their bodies
 *       on purpose: until the key is gone, a late repeat is still recognised as a duplicate and not
 *       applied again, it just gets no stored body back.
 * </ol>
 *
 * <p>Once the key row is deleted nothing can recognise the repeat any more, so a message older than
 * its scope's key TTL is not the inbox's business: the consumer's too-old guard ({@link
 * dev.inboxoutbox.consumer.ConsumerSettings.TooOldPolicy}) catches it, and by default dead-letters
 * it. Published outbox rows kept for inspection are deleted after {@link
 * dev.inboxoutbox.retention.RetentionCleaner.Builder#outboxKeep}; unpublished ones never are.
 *
 * <p>{@link dev.inboxoutbox.retention.RetentionCleaner} does the work in short batches that skip
 * locked rows, for as long as a run's time budget allows, shared fairly between the steps; {@link
 * dev.inboxoutbox.retention.RetentionCleaner#schedule} runs it periodically, and back to back while
 * a backlog lasts.
 */
package dev.inboxoutbox.retention;
