package dev.inboxoutbox.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * How the cleaner works through expired rows. The inbox TTLs themselves are stamped on each row at
 * claim time (see {@link dev.inboxoutbox.inbox.Retention}); this only says how long published
 * outbox rows stay and how hard one cleanup run may push.
 *
 * <pre>{@code
 * RetentionPolicy policy =
 *     RetentionPolicy.defaults().withBatchSize(500).withPauseBetweenBatches(Duration.ofMillis(20));
 * }</pre>
 *
 * @param batchSize rows per batch, each batch its own transaction: short transactions keep row
 *     locks and WAL bursts small
 * @param outboxKeep how long a published outbox row (policy KEEP) stays for inspection, counted
 *     from its {@code created_at}; zero removes published rows at the next run
 * @param maxBatchesPerRun bounds one run over all phases; what is left waits for the next run
 * @param pauseBetweenBatches sleep before each batch but the first, so a large backlog is worked
 *     off without monopolising the database's I/O
 */
public record RetentionPolicy(
    int batchSize, Duration outboxKeep, int maxBatchesPerRun, Duration pauseBetweenBatches) {

  public static final int DEFAULT_BATCH_SIZE = 1000;
  public static final Duration DEFAULT_OUTBOX_KEEP = Duration.ofDays(7);
  public static final int DEFAULT_MAX_BATCHES_PER_RUN = 1000;
  public static final Duration DEFAULT_PAUSE_BETWEEN_BATCHES = Duration.ZERO;

  public RetentionPolicy {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("retention batchSize must be positive; was " + batchSize);
    }
    Objects.requireNonNull(outboxKeep, "outboxKeep");
    if (outboxKeep.isNegative()) {
      throw new IllegalArgumentException(
          "retention outboxKeep must not be negative; was " + outboxKeep);
    }
    if (maxBatchesPerRun <= 0) {
      throw new IllegalArgumentException(
          "retention maxBatchesPerRun must be positive; was " + maxBatchesPerRun);
    }
    Objects.requireNonNull(pauseBetweenBatches, "pauseBetweenBatches");
    if (pauseBetweenBatches.isNegative()) {
      throw new IllegalArgumentException(
          "retention pauseBetweenBatches must not be negative; was " + pauseBetweenBatches);
    }
  }

  /** Batches of 1000, published outbox rows kept 7 days, at most 1000 batches per run, no pause. */
  public static RetentionPolicy defaults() {
    return new RetentionPolicy(
        DEFAULT_BATCH_SIZE,
        DEFAULT_OUTBOX_KEEP,
        DEFAULT_MAX_BATCHES_PER_RUN,
        DEFAULT_PAUSE_BETWEEN_BATCHES);
  }

  public RetentionPolicy withBatchSize(int batchSize) {
    return new RetentionPolicy(batchSize, outboxKeep, maxBatchesPerRun, pauseBetweenBatches);
  }

  public RetentionPolicy withOutboxKeep(Duration outboxKeep) {
    return new RetentionPolicy(batchSize, outboxKeep, maxBatchesPerRun, pauseBetweenBatches);
  }

  public RetentionPolicy withMaxBatchesPerRun(int maxBatchesPerRun) {
    return new RetentionPolicy(batchSize, outboxKeep, maxBatchesPerRun, pauseBetweenBatches);
  }

  public RetentionPolicy withPauseBetweenBatches(Duration pauseBetweenBatches) {
    return new RetentionPolicy(batchSize, outboxKeep, maxBatchesPerRun, pauseBetweenBatches);
  }
}
