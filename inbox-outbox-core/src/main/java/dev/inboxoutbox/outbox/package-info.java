/**
 * The transactional outbox: events appended in the caller's transaction, published by the relay
 * ({@link dev.inboxoutbox.relay}). Start with {@link dev.inboxoutbox.outbox.Outbox}.
 */
package dev.inboxoutbox.outbox;
