/**
 * The outbox relay: a Debezium embedded engine (PostgreSQL connector, {@code pgoutput}, Outbox
 * Event Router) that streams outbox inserts to Kafka, one active instance per database. Start with
 * {@link dev.inboxoutbox.relay.OutboxRelay}.
 */
package dev.inboxoutbox.relay;
