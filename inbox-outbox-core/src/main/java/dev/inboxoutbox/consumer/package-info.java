/**
 * The idempotent consumer runtime: Kafka batches applied exactly once per idempotency key, with
 * dead letters for records that can never apply. {@link dev.inboxoutbox.consumer.IdempotentConsumer}
 * runs a plain kafka-clients loop; {@link dev.inboxoutbox.consumer.BatchProcessor} is the same
 * logic for any other poller (a spring-kafka batch listener).
 */
package dev.inboxoutbox.consumer;
