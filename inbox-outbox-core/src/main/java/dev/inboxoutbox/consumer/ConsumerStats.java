package dev.inboxoutbox.consumer;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Live counters of one consumer; read them with {@link #snapshot()} or bind them to metrics.
 * {@code records} counts records whose processing finished (applied, absorbed or dead-lettered).
 * {@code transactionSuspensions} counts the times a handler suspended the batch transaction (an
 * inner REQUIRES_NEW or NOT_SUPPORTED transaction, as far as the transaction runner can tell): its
 * writes meanwhile escaped the batch.
 */
public final class ConsumerStats {

  private final AtomicLong records = new AtomicLong();
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong rejections = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong batchFallbacks = new AtomicLong();
  private final AtomicLong transientFailures = new AtomicLong();
  private final AtomicLong tooOldApplied = new AtomicLong();
  private final AtomicLong eventsEmitted = new AtomicLong();
  private final AtomicLong handlerNanos = new AtomicLong();
  private final AtomicLong transactionSuspensions = new AtomicLong();
  private final Map<DeadLetterReason, AtomicLong> deadLetters = new EnumMap<>(DeadLetterReason.class);

  public ConsumerStats() {
    for (DeadLetterReason reason : DeadLetterReason.values()) {
      deadLetters.put(reason, new AtomicLong());
    }
  }

  /** Counts at one moment. */
  public record Snapshot(
      long records,
      long applied,
      long duplicates,
      long rejections,
      long batches,
      long batchFallbacks,
      long transientFailures,
      long tooOldApplied,
      long eventsEmitted,
      long handlerNanos,
      long transactionSuspensions,
      Map<DeadLetterReason, Long> deadLetters) {

    public long deadLettered() {
      return deadLetters.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  public Snapshot snapshot() {
    Map<DeadLetterReason, Long> dead = new EnumMap<>(DeadLetterReason.class);
    deadLetters.forEach((reason, count) -> dead.put(reason, count.get()));
    return new Snapshot(
        records.get(), applied.get(), duplicates.get(), rejections.get(), batches.get(),
        batchFallbacks.get(), transientFailures.get(), tooOldApplied.get(), eventsEmitted.get(),
        handlerNanos.get(), transactionSuspensions.get(), Map.copyOf(dead));
  }

  public long deadLetters(DeadLetterReason reason) {
    return deadLetters.get(reason).get();
  }

  void records(int count) {
    records.addAndGet(count);
  }

  void applied(boolean rejected, long nanos, int emitted) {
    applied.incrementAndGet();
    if (rejected) {
      rejections.incrementAndGet();
    }
    handlerNanos.addAndGet(nanos);
    eventsEmitted.addAndGet(emitted);
  }

  void duplicate() {
    duplicates.incrementAndGet();
  }

  void batch() {
    batches.incrementAndGet();
  }

  void batchFallback() {
    batchFallbacks.incrementAndGet();
  }

  void transientFailure() {
    transientFailures.incrementAndGet();
  }

  void tooOldApplied() {
    tooOldApplied.incrementAndGet();
  }

  void transactionSuspended() {
    transactionSuspensions.incrementAndGet();
  }

  void deadLettered(DeadLetterReason reason) {
    deadLetters.get(reason).incrementAndGet();
  }
}
