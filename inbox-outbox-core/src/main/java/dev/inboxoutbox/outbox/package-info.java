/**
 * The transactional outbox: events appended in the caller's transaction, published by a relay that
 * reads the table's inserts from the write-ahead log (the inbox-outbox-relay-debezium module, or
 * Debezium Server / Kafka Connect configured as docs/relay.md describes). Start with {@link
 * dev.inboxoutbox.outbox.Outbox}.
 */
package dev.inboxoutbox.outbox;
