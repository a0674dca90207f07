package dev.inboxoutbox.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What one cleanup run did.
 *
 * @param complete false when {@code maxBatchesPerRun} stopped the run with work left
 * @param oldestKeyExpiry the earliest {@code expires_at} still in the inbox afterwards
 */
public record RetentionReport(
    long outcomesPruned,
    long keysDeleted,
    long outboxRowsDeleted,
    int batches,
    Duration took,
    boolean complete,
    Optional<Instant> oldestKeyExpiry) {

  public long total() {
    return outcomesPruned + keysDeleted + outboxRowsDeleted;
  }
}
