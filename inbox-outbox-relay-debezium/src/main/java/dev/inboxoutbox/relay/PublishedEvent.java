package dev.inboxoutbox.relay;

import java.time.Instant;

/** An outbox event Kafka acknowledged. */
public record PublishedEvent(
    String eventId, String topic, String key, int partition, long offset, Instant acknowledgedAt) {}
