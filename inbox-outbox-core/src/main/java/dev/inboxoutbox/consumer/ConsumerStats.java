package dev.inboxoutbox.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.TopicPartition;

/**
 * Live counters of one consumer; read them with {@link #snapshot()} or bind them to metrics. {@code
 * records} counts records whose processing finished (applied, absorbed or dead-lettered).
 *
 * <p>{@link #failure()} is the retry state: partitions whose batch failed and has not been done
 * since. It is kept per partition, so one partition that keeps failing is not hidden by others that
 * succeed (several listener threads share these stats). A batch that has neither failed nor
 * finished for the consumer's {@code stuckAfter} (a handler blocked on a lock or a call that does
 * not return) counts too: nothing else would tell that its partitions stand still.
 *
 * <p>{@code transactionSuspensions} counts the times a handler suspended the batch transaction (an
 * inner REQUIRES_NEW or NOT_SUPPORTED transaction, as far as the transaction runner can tell): its
 * writes meanwhile escaped the batch.
 *
 * <p>{@link #stageNanos()} tells where the batches' time went, {@link Stage} by stage: cumulative
 * nanoseconds, always on (two {@link System#nanoTime()} reads per stage and batch, no allocation
 * per stage or record).
 */
public final class ConsumerStats {

  /**
   * The stages of a batch, in the order they run. {@link #POLL} and {@link #OFFSET_COMMIT} are the
   * poll loop's ({@link IdempotentConsumer}); under another poller (a listener container) they stay
   * at zero. A batch that falls back to one transaction per record adds each of those transactions'
   * stages too.
   */
  public enum Stage {
    /** {@code poll} calls that returned records (the empty ones are idle time, not counted). */
    POLL,
    /** Size, JSON, key, scope and age checks, and the payload's canonical hash, per record. */
    VALIDATION,
    /** The claim statement of the batch's keys. */
    CLAIM,
    /** {@link MessageHandler#beforeBatch} and every {@link MessageHandler#handle} of the batch. */
    HANDLER,
    /** Recording the outcomes that are not a bare success (nothing when all are). */
    CORRECTION,
    /**
     * The transaction around the claim and the handler: taking the connection, commit (or rollback)
     * and releasing it.
     */
    COMMIT,
    /** Sending the batch's dead letters and waiting for Kafka's acknowledgements. */
    DEAD_LETTERS,
    /** Committing the batch's offsets to Kafka ({@code commitSync}). */
    OFFSET_COMMIT
  }

  private static final Stage[] STAGES = Stage.values();

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
  private final AtomicLong deadLetterFailures = new AtomicLong();
  private final AtomicLong deadLettersWithoutValue = new AtomicLong();
  private final AtomicLong transactionSuspensions = new AtomicLong();
  private final Map<DeadLetterReason, AtomicLong> deadLetters =
      new EnumMap<>(DeadLetterReason.class);
  private final Map<TopicPartition, PartitionFailure> failing = new ConcurrentHashMap<>();
  private final Map<Thread, Unfinished> unfinished = new ConcurrentHashMap<>();
  private final Duration unfinishedAfter;
  private final LongAdder[] stageNanos = new LongAdder[STAGES.length];

  ConsumerStats() {
    this(ConsumerSettings.DEFAULT_STUCK_AFTER);
  }

  /** {@code unfinishedAfter}: how long a batch may run before it counts as a failure. */
  ConsumerStats(Duration unfinishedAfter) {
    this.unfinishedAfter = unfinishedAfter;
    for (DeadLetterReason reason : DeadLetterReason.values()) {
      deadLetters.put(reason, new AtomicLong());
    }
    for (int i = 0; i < stageNanos.length; i++) {
      stageNanos[i] = new LongAdder();
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
      Map<DeadLetterReason, Long> deadLetters,
      long deadLetterFailures,
      long deadLettersWithoutValue) {

    public long deadLettered() {
      return deadLetters.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  public Snapshot snapshot() {
    Map<DeadLetterReason, Long> dead = new EnumMap<>(DeadLetterReason.class);
    deadLetters.forEach((reason, count) -> dead.put(reason, count.get()));
    return new Snapshot(
        records.get(),
        applied.get(),
        duplicates.get(),
        rejections.get(),
        batches.get(),
        batchFallbacks.get(),
        transientFailures.get(),
        tooOldApplied.get(),
        eventsEmitted.get(),
        handlerNanos.get(),
        transactionSuspensions.get(),
        Map.copyOf(dead),
        deadLetterFailures.get(),
        deadLettersWithoutValue.get());
  }

  /**
   * Nanoseconds spent in each stage since this consumer started, summed over its batches (and over
   * its threads, when several share these stats): every stage, in the order they run, read at one
   * moment each.
   */
  public Map<Stage, Long> stageNanos() {
    Map<Stage, Long> nanos = new EnumMap<>(Stage.class);
    for (Stage stage : STAGES) {
      nanos.put(stage, stageNanos(stage));
    }
    return Collections.unmodifiableMap(nanos);
  }

  /** Nanoseconds spent in {@code stage} since this consumer started. */
  public long stageNanos(Stage stage) {
    return stageNanos[stage.ordinal()].sum();
  }

  /**
   * Batches failing since they last succeeded, as one: the earliest start, the longest run of
   * failed attempts, the latest error; not retriable if any partition's last failure was not. Empty
   * while every partition makes progress.
   */
  public record Failure(
      Instant since,
      long consecutiveFailures,
      String lastError,
      boolean retriable,
      Set<TopicPartition> partitions) {

    /** How long the oldest failing partition has made no progress. */
    public Duration duration(Instant now) {
      return Duration.between(since, now);
    }

    /**
     * Stuck: failing for {@code stuckAfter} or longer, or with a failure that no retry can fix
     * (nothing changes until an operator acts, so there is nothing to wait for).
     */
    public boolean stuck(Duration stuckAfter, Instant now) {
      return !retriable || duration(now).compareTo(stuckAfter) >= 0;
    }
  }

  public Optional<Failure> failure() {
    return failure(Instant.now());
  }

  Optional<Failure> failure(Instant at) {
    Optional<Failure> overdue = overdueBatch(at);
    Optional<Failure> failed = failedPartitions();
    if (overdue.isEmpty() || failed.isEmpty()) {
      return overdue.isPresent() ? overdue : failed;
    }
    Failure running = overdue.get();
    Failure failing = failed.get();
    Set<TopicPartition> partitions = new HashSet<>(failing.partitions());
    partitions.addAll(running.partitions());
    return Optional.of(
        new Failure(
            running.since().isBefore(failing.since()) ? running.since() : failing.since(),
            failing.consecutiveFailures(),
            running.lastError(),
            failing.retriable(),
            Set.copyOf(partitions)));
  }

  /** The oldest batch still running after {@code unfinishedAfter}, as a failure. */
  private Optional<Failure> overdueBatch(Instant at) {
    return unfinished.values().stream()
        .filter(batch -> !batch.since().plus(unfinishedAfter).isAfter(at))
        .min(Comparator.comparing(Unfinished::since))
        .map(
            batch ->
                new Failure(
                    batch.since(),
                    0,
                    "a batch of "
                        + batch.records()
                        + (batch.records() == 1 ? " record" : " records")
                        + " has not finished for "
                        + Duration.between(batch.since(), at).toSeconds()
                        + " s (its handler or the database does not return: a lock another"
                        + " session holds, a call without a timeout)",
                    true,
                    batch.partitions()));
  }

  private Optional<Failure> failedPartitions() {
    Map<TopicPartition, PartitionFailure> now = Map.copyOf(failing);
    if (now.isEmpty()) {
      return Optional.empty();
    }
    Instant since =
        now.values().stream()
            .map(PartitionFailure::since)
            .min(Comparator.naturalOrder())
            .orElseThrow();
    long attempts = now.values().stream().mapToLong(PartitionFailure::attempts).max().orElseThrow();
    PartitionFailure latest =
        now.values().stream().max(Comparator.comparing(PartitionFailure::lastAt)).orElseThrow();
    boolean retriable = now.values().stream().allMatch(PartitionFailure::retriable);
    return Optional.of(
        new Failure(since, attempts, latest.lastError(), retriable, Set.copyOf(now.keySet())));
  }

  /**
   * Records a failed attempt for these partitions; returns the longest run of failed attempts among
   * them.
   */
  long failed(Collection<TopicPartition> partitions, String error, boolean retriable, Instant at) {
    long longest = 0;
    for (TopicPartition partition : partitions) {
      PartitionFailure now =
          failing.merge(
              partition,
              new PartitionFailure(at, 1, at, error, retriable),
              (before, next) ->
                  new PartitionFailure(
                      before.since(), before.attempts() + 1, at, error, retriable));
      longest = Math.max(longest, now.attempts());
    }
    return longest;
  }

  /** This thread starts a batch of {@code records} from {@code partitions}. */
  void batchStarted(Set<TopicPartition> partitions, int records, Instant at) {
    unfinished.put(Thread.currentThread(), new Unfinished(at, Set.copyOf(partitions), records));
  }

  /** This thread's batch ended, done or failed. */
  void batchEnded() {
    unfinished.remove(Thread.currentThread());
  }

  /** These partitions made progress. */
  void succeeded(Collection<TopicPartition> partitions) {
    partitions.forEach(failing::remove);
  }

  /** These partitions moved to another consumer; their failures are its business now. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(failing::remove);
  }

  private record Unfinished(Instant since, Set<TopicPartition> partitions, int records) {}

  private record PartitionFailure(
      Instant since, long attempts, Instant lastAt, String lastError, boolean retriable) {}

  public long deadLetters(DeadLetterReason reason) {
    return deadLetters.get(reason).get();
  }

  /** Adds {@code nanos} to {@code stage}; returns them, for callers that add stages up. */
  long stage(Stage stage, long nanos) {
    stageNanos[stage.ordinal()].add(nanos);
    return nanos;
  }

  /** Adds the time since {@code startedNanos} to {@code stage}; returns the current time. */
  long stageSince(Stage stage, long startedNanos) {
    long now = System.nanoTime();
    stageNanos[stage.ordinal()].add(now - startedNanos);
    return now;
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

  void deadLetterFailure() {
    deadLetterFailures.incrementAndGet();
  }

  void deadLetteredWithoutValue() {
    deadLettersWithoutValue.incrementAndGet();
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
