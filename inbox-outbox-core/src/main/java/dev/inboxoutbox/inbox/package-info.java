/**
 * The inbox: idempotency keys claimed atomically in the caller's database transaction.
 *
 * <p>Start with {@link dev.inboxoutbox.inbox.Inbox}. A claim is one {@code INSERT ... ON CONFLICT
 * DO NOTHING} against a unique index on (tenant, principal, operation, key), in the same
 * transaction as the state change it guards; it answers {@link
 * dev.inboxoutbox.inbox.ClaimResult.New}, {@link dev.inboxoutbox.inbox.ClaimResult.Duplicate} (with
 * the stored outcome) or {@link dev.inboxoutbox.inbox.ClaimResult.Conflict} (same key, different
 * payload). Nothing is ever checked by reading first and writing later.
 */
package dev.inboxoutbox.inbox;
