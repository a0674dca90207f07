/**
 * The idempotent consumer runtime: Kafka batches applied exactly once per idempotency key, with
 * dead letters for records that can never apply. {@link
 * dev.inboxoutbox.consumer.IdempotentConsumer} runs a plain kafka-clients loop; {@link
 * dev.inboxoutbox.consumer.BatchProcessor} is the same logic for any other poller (a spring-kafka
 * batch listener). Both take their database transaction from a {@link
 * dev.inboxoutbox.consumer.TransactionRunner}: plain JDBC on a data source, or an application's own
 * transaction management.
 */
package dev.inboxoutbox.consumer;
