package dev.inboxoutbox.retention;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What one cleanup run did. A key row deleted with its body still in place counts as a deleted key
 * only, never also as a pruned outcome.
 *
 * @param batches statements run, the final short (or empty) batch of each phase included
 * @param oldestKeyExpiry the earliest {@code expires_at} left in the inbox afterwards; in the past
 *     means cleanup is behind (or a consumer held that row)
 * @param oldestPublishedOutboxRow the {@code created_at} of the oldest published outbox row left
 * @param complete false when {@link RetentionPolicy#maxBatchesPerRun()} (or an interrupt) stopped
 *     the run with work possibly left for the next one
 */
public record RetentionReport(
    long outcomesPruned,
    long keysDeleted,
    long outboxRowsDeleted,
    int batches,
    Duration took,
    Optional<Instant> oldestKeyExpiry,
    Optional<Instant> oldestPublishedOutboxRow,
    boolean complete) {

  public RetentionReport {
    Objects.requireNonNull(took, "took");
    Objects.requireNonNull(oldestKeyExpiry, "oldestKeyExpiry");
    Objects.requireNonNull(oldestPublishedOutboxRow, "oldestPublishedOutboxRow");
  }

  /** Outcome bodies pruned plus rows deleted. */
  public long rowsAffected() {
    return outcomesPruned + keysDeleted + outboxRowsDeleted;
  }
}
