package dev.inboxoutbox.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How the cleaner works through expired rows. TTLs themselves are stamped on each inbox row at
 * claim time (see {@link dev.inboxoutbox.inbox.Retention}); this only bounds the cleanup.
 *
 * @param batchSize rows per transaction: short transactions never hold consumers up for long
 * @param maxBatchesPerRun bounds one run; the rest waits for the next
 * @param outboxKeep how long published outbox rows (policy KEEP) stay for inspection
 */
public record RetentionPolicy(int batchSize, int maxBatchesPerRun, Duration outboxKeep) {

  public RetentionPolicy {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("retention batchSize must be positive; was " + batchSize);
    }
    if (maxBatchesPerRun <= 0) {
      throw new IllegalArgumentException("retention maxBatchesPerRun must be positive; was " + maxBatchesPerRun);
    }
    Objects.requireNonNull(outboxKeep, "outboxKeep");
    if (outboxKeep.isNegative()) {
      throw new IllegalArgumentException("retention outboxKeep must not be negative");
    }
  }

  /** 1000 rows per batch, at most 1000 batches per run, published outbox rows kept 7 days. */
  public static RetentionPolicy defaults() {
    return new RetentionPolicy(1000, 1000, Duration.ofDays(7));
  }

  public RetentionPolicy withBatchSize(int batchSize) {
    return new RetentionPolicy(batchSize, maxBatchesPerRun, outboxKeep);
  }

  public RetentionPolicy withMaxBatchesPerRun(int maxBatchesPerRun) {
    return new RetentionPolicy(batchSize, maxBatchesPerRun, outboxKeep);
  }

  public RetentionPolicy withOutboxKeep(Duration outboxKeep) {
    return new RetentionPolicy(batchSize, maxBatchesPerRun, outboxKeep);
  }
}
