package dev.inboxoutbox.retention;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a cleanup run would remove at this moment, read in one snapshot without changing anything. A
 * real run may remove less: rows a consumer has locked are skipped, and {@link
 * RetentionPolicy#maxBatchesPerRun()} may stop it first.
 *
 * @param oldestKeyExpiry the earliest {@code expires_at} in the inbox now, before any cleanup
 * @param oldestPublishedOutboxRow the {@code created_at} of the oldest published outbox row now
 */
public record RetentionPreview(
    long outcomesToPrune,
    long keysToDelete,
    long outboxRowsToDelete,
    Optional<Instant> oldestKeyExpiry,
    Optional<Instant> oldestPublishedOutboxRow) {

  public RetentionPreview {
    Objects.requireNonNull(oldestKeyExpiry, "oldestKeyExpiry");
    Objects.requireNonNull(oldestPublishedOutboxRow, "oldestPublishedOutboxRow");
  }
}
