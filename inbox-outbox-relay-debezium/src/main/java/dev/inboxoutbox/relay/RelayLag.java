package dev.inboxoutbox.relay;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How far the relay is behind.
 *
 * @param oldestUnpublished age of the oldest kept outbox row not yet acknowledged by Kafka; empty
 *     when there is none (or rows are deleted right after insert, where only the slot tells)
 * @param unpublishedRows kept outbox rows not yet acknowledged
 * @param slotLagBytes write-ahead log the replication slot still holds back (current WAL position
 *     minus the slot's confirmed position); empty before the relay first created its slot
 */
public record RelayLag(
    Optional<Duration> oldestUnpublished, long unpublishedRows, OptionalLong slotLagBytes) {}
