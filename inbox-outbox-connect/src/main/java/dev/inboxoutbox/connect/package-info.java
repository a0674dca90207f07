/**
 * The outbox connector: Debezium's PostgreSQL connector with offsets a restart cannot mistake for a
 * row of another transaction. Runs in Kafka Connect and Debezium Server ({@code connector.class=}
 * {@link dev.inboxoutbox.connect.OutboxConnector}) and in the embedded relay.
 */
package dev.inboxoutbox.connect;
