package dev.inboxoutbox.retention;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Removes what retention says is expired, in bounded batches, each batch one statement committing
 * on its own. A run works through three {@linkplain Step steps} and goes on while they find full
 * batches, until they are done or its {@link Builder#runBudget time budget} is spent:
 *
 * <ol>
 *   <li>inbox rows past {@code expires_at} are deleted, body and all;
 *   <li>outcome bodies past {@code outcome_expires_at} on the keys that stay are pruned ({@code
 *       outcome_body = NULL}, {@code outcome_pruned_at = now()}); a row still {@code PROCESSING}
 *       keeps everything;
 *   <li>published outbox rows created more than {@link Builder#outboxKeep} ago are deleted; an
 *       unpublished row is never deleted, however old.
 * </ol>
 *
 * <p>Expired keys go before bodies are pruned so that a row about to be deleted is not rewritten
 * first: an update is a new row version, and a backlog would double its WAL and bloat for nothing.
 * The budget is shared fairly: each step gets an equal part of what is left, and time a step does
 * not need goes to the others, so a backlog of keys never starves bodies or outbox rows. A run that
 * ends behind says so ({@link Report#complete()}), and a {@link #schedule schedule} then starts the
 * next run at once.
 *
 * <p>Every batch picks at most {@link Builder#batchSize} rows through the expiry indexes, oldest
 * first, and locks them with {@code FOR UPDATE SKIP LOCKED}: a row a consumer holds is passed over,
 * never waited on, and taken by a later run. Several cleaners (one per application instance) may
 * therefore run at once; they split the work. Instances are thread-safe.
 *
 * <pre>{@code
 * RetentionCleaner cleaner =
 *     RetentionCleaner.builder(dataSource).batchSize(500).pauseBetweenBatches(ofMillis(20)).build();
 * cleaner.preview();                                     // what a run would remove now
 * try (RetentionCleaner.Schedule schedule = cleaner.schedule(Duration.ofMinutes(5))) {
 *   ...                                                  // runs every 5 minutes until closed
 * }
 * }</pre>
 */
public final class RetentionCleaner {

  private final DataSource dataSource;
  private final int batchSize;
  private final Duration outboxKeep;
  private final Duration runBudget;
  private final Duration pauseBetweenBatches;
  private final Ticker ticker;
  private final BacklogProbe backlogProbe;
  private final RetentionPreview previewQuery;

  private RetentionCleaner(Builder builder) {
    this.dataSource = builder.dataSource;
    this.batchSize = builder.batchSize;
    this.outboxKeep = builder.outboxKeep;
    this.runBudget = builder.runBudget;
    this.pauseBetweenBatches = builder.pauseBetweenBatches;
    this.ticker = builder.ticker;
    this.backlogProbe = new BacklogProbe(builder.outboxKeep);
    this.previewQuery = new RetentionPreview(builder.dataSource, builder.outboxKeep);
  }

  /** A cleaner on {@code dataSource}, with the defaults each {@link Builder} setter states. */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Runs this cleaner on one daemon thread: at once, then {@code interval} after each run that
   * finished its work, so runs never overlap. A run that ended behind (its budget spent with work
   * left) is followed at once by the next, after only {@link Builder#pauseBetweenBatches}, so
   * cleanup keeps pace with any intake the database can delete. A failed run is logged and counted,
   * and the next one comes after {@code interval}. Close the schedule to stop it.
   */
  public Schedule schedule(Duration interval) {
    return schedule(interval, report -> {});
  }

  /**
   * As {@link #schedule(Duration)}, handing every successful run's report to {@code listener} on
   * the schedule's thread, e.g. to record metrics; it should return quickly, and an exception it
   * throws is logged and ignored.
   */
  public Schedule schedule(Duration interval, Consumer<Report> listener) {
    return new ScheduledRetention(this, interval, listener).start();
  }

  /**
   * Runs the three steps once on one connection, every batch committing on its own, until they are
   * done or the {@link Builder#runBudget} is spent, then measures what is left. Logs one INFO line
   * when anything was removed or the run ended behind, DEBUG otherwise.
   *
   * @throws RuntimeException if the database fails; batches committed before stay cleaned
   */
  public Report run() {
    long started = System.nanoTime();
    RunBudget budget = new RunBudget(runBudget, pauseBetweenBatches, ticker);
    Map<Step, Long> removed = new EnumMap<>(Step.class);
    Map<Step, Backlog> backlog;
    try (Connection connection = dataSource.getConnection()) {
      // Each batch its own transaction: its row locks and WAL are released before the next one.
      connection.setAutoCommit(true);
      List<StepBatch> all = new ArrayList<>();
      try {
        for (Step step : Step.values()) {
          all.add(StepBatch.prepare(connection, step, batchSize, outboxKeep));
        }
        List<StepBatch> pending = new ArrayList<>(all);
        while (!pending.isEmpty() && budget.startPass()) {
          int stepsLeft = pending.size();
          for (Iterator<StepBatch> steps = pending.iterator(); steps.hasNext(); stepsLeft--) {
            if (steps.next().drain(budget.slice(stepsLeft), budget)) {
              steps.remove();
            }
          }
        }
      } finally {
        for (StepBatch step : all) {
          step.close();
        }
      }
      for (StepBatch step : all) {
        removed.put(step.step(), step.removed());
      }
      backlog = backlogProbe.measure(connection);
    } catch (SQLException e) {
      throw new RetentionException("retention could not open or close its database connection", e);
    }
    boolean complete = budget.stopReason() == null;
    Report report =
        new Report(
            removed.get(Step.PRUNE_OUTCOME_BODIES),
            removed.get(Step.DELETE_EXPIRED_KEYS),
            removed.get(Step.DELETE_PUBLISHED_OUTBOX_ROWS),
            budget.batches(),
            Duration.ofNanos(System.nanoTime() - started),
            complete,
            backlog);
    RunLog.write(report, budget.stopReason());
    return report;
  }

  /**
   * Counts what {@link #run()} would remove now, changing nothing: for dry runs and dashboards.
   *
   * @throws RuntimeException if the database fails
   */
  public Preview preview() {
    return previewQuery.read();
  }

  /** The pause a schedule leaves between a run that ended behind and the next. */
  Duration pauseBetweenBatches() {
    return pauseBetweenBatches;
  }

  /** The three steps of a run, in the order a run takes them. */
  public enum Step {
    /** Inbox rows past {@code expires_at}, body and all. */
    DELETE_EXPIRED_KEYS("deleting expired keys"),
    /** Outcome bodies past {@code outcome_expires_at} on keys that stay. */
    PRUNE_OUTCOME_BODIES("pruning expired outcome bodies"),
    /** Published outbox rows older than {@link Builder#outboxKeep}. */
    DELETE_PUBLISHED_OUTBOX_ROWS("deleting published outbox rows");

    private final String description;

    Step(String description) {
      this.description = description;
    }

    String description() {
      return description;
    }
  }

  /**
   * What one step has left after a run, measured cheaply: the overdue rows are counted only up to
   * {@link #COUNT_LIMIT}, through the step's expiry index.
   *
   * @param overdueRows rows already due, at most {@link #COUNT_LIMIT}; at the limit there may be
   *     many more. For {@link Step#PRUNE_OUTCOME_BODIES} this includes bodies on keys that are
   *     themselves expired (the key step removes them with their row).
   * @param oldestDue when the oldest row left for this step was or will be due; in the past means
   *     the step is behind by that much (or a consumer held that row). Empty when nothing is left.
   */
  public record Backlog(long overdueRows, Optional<Instant> oldestDue) {

    /** Overdue rows are counted up to this many per step, so the count stays cheap. */
    public static final int COUNT_LIMIT = 100_000;

    public Backlog {
      Objects.requireNonNull(oldestDue, "oldestDue");
    }

    /** Whether the count stopped at {@link #COUNT_LIMIT}: at least that many rows are overdue. */
    public boolean countCapped() {
      return overdueRows >= COUNT_LIMIT;
    }

    /** How long past due the oldest row left is at {@code now}; zero when nothing is overdue. */
    public Duration overdue(Instant now) {
      return oldestDue
          .filter(due -> due.isBefore(now))
          .map(due -> Duration.between(due, now))
          .orElse(Duration.ZERO);
    }
  }

  /**
   * What one cleanup run did. A key row deleted with its body still in place counts as a deleted
   * key only, never also as a pruned outcome.
   *
   * @param batches statements run, the final short (or empty) batch of each step included
   * @param complete false when the {@link Builder#runBudget} (or an interrupt) stopped the run with
   *     work possibly left; a schedule then starts the next run at once
   * @param backlog what each step left, measured after the run
   */
  public record Report(
      long outcomesPruned,
      long keysDeleted,
      long outboxRowsDeleted,
      int batches,
      Duration took,
      boolean complete,
      Map<Step, Backlog> backlog) {

    public Report {
      Objects.requireNonNull(took, "took");
      backlog = Map.copyOf(backlog);
      for (Step step : Step.values()) {
        if (!backlog.containsKey(step)) {
          throw new IllegalArgumentException("report has no backlog for " + step);
        }
      }
    }

    /** Outcome bodies pruned plus rows deleted. */
    public long rowsAffected() {
      return outcomesPruned + keysDeleted + outboxRowsDeleted;
    }

    /**
     * The earliest {@code expires_at} left in the inbox afterwards; in the past means cleanup is
     * behind (or a consumer held that row).
     */
    public Optional<Instant> oldestKeyExpiry() {
      return backlog.get(Step.DELETE_EXPIRED_KEYS).oldestDue();
    }

    /** How far behind the step furthest behind is at {@code now}: zero when all keep up. */
    public Duration overdue(Instant now) {
      return backlog.values().stream()
          .map(step -> step.overdue(now))
          .max(Duration::compareTo)
          .orElse(Duration.ZERO);
    }
  }

  /**
   * What a cleanup run would remove at this moment, read in one snapshot without changing anything.
   * A real run may remove less: rows a consumer has locked are skipped, and {@link
   * Builder#runBudget} may stop it first.
   *
   * @param oldestKeyExpiry the earliest {@code expires_at} in the inbox now, before any cleanup
   * @param oldestPublishedOutboxRow the {@code created_at} of the oldest published outbox row now
   */
  public record Preview(
      long outcomesToPrune,
      long keysToDelete,
      long outboxRowsToDelete,
      Optional<Instant> oldestKeyExpiry,
      Optional<Instant> oldestPublishedOutboxRow) {

    public Preview {
      Objects.requireNonNull(oldestKeyExpiry, "oldestKeyExpiry");
      Objects.requireNonNull(oldestPublishedOutboxRow, "oldestPublishedOutboxRow");
    }
  }

  /** Periodic runs of a cleaner, from {@link #schedule}; {@link #close()} stops them. */
  public interface Schedule extends AutoCloseable {

    /** The report of the latest successful run, empty before the first one. */
    Optional<Report> lastReport();

    /** Runs that finished with a report. */
    long runs();

    /** Runs that failed with an exception. */
    long failures();

    /** Stops scheduling, interrupts a run between batches and waits for it to end. */
    @Override
    void close();
  }

  /**
   * Builds a {@link RetentionCleaner}. The inbox TTLs themselves are stamped on each row at claim
   * time (see {@link dev.inboxoutbox.inbox.Inbox.Retention}); these settings only say how long
   * published outbox rows stay and how hard one cleanup run may push. Each setter rejects a bad
   * value at once.
   */
  public static final class Builder {
    public static final int DEFAULT_BATCH_SIZE = 1000;
    public static final Duration DEFAULT_OUTBOX_KEEP = Duration.ofDays(7);
    public static final Duration DEFAULT_RUN_BUDGET = Duration.ofSeconds(30);
    public static final Duration DEFAULT_PAUSE_BETWEEN_BATCHES = Duration.ZERO;

    private final DataSource dataSource;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration outboxKeep = DEFAULT_OUTBOX_KEEP;
    private Duration runBudget = DEFAULT_RUN_BUDGET;
    private Duration pauseBetweenBatches = DEFAULT_PAUSE_BETWEEN_BATCHES;
    private Ticker ticker = Ticker.SYSTEM;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Rows per batch, each batch its own transaction: short transactions keep row locks and WAL
     * bursts small. Default {@value #DEFAULT_BATCH_SIZE}.
     */
    public Builder batchSize(int batchSize) {
      if (batchSize <= 0) {
        throw new IllegalArgumentException(
            "retention batchSize must be positive; was " + batchSize);
      }
      this.batchSize = batchSize;
      return this;
    }

    /**
     * How long a published outbox row (policy KEEP) stays for inspection, counted from its {@code
     * created_at}; zero removes published rows at the next run. Default 7 days.
     */
    public Builder outboxKeep(Duration outboxKeep) {
      Objects.requireNonNull(outboxKeep, "outboxKeep");
      if (outboxKeep.isNegative()) {
        throw new IllegalArgumentException(
            "retention outboxKeep must not be negative; was " + outboxKeep);
      }
      this.outboxKeep = outboxKeep;
      return this;
    }

    /**
     * How long one run may go on while its steps keep finding full batches; a batch already started
     * finishes, so a run can exceed this by about one batch. The time is shared fairly between the
     * steps. What is left when it is spent is taken by the next run, which a schedule starts at
     * once. Pauses between batches count as part of the run. Default 30 seconds.
     */
    public Builder runBudget(Duration runBudget) {
      Objects.requireNonNull(runBudget, "runBudget");
      if (runBudget.isNegative() || runBudget.isZero()) {
        throw new IllegalArgumentException(
            "retention runBudget must be positive; was " + runBudget);
      }
      this.runBudget = runBudget;
      return this;
    }

    /**
     * Sleep before each batch but the first, so a large backlog is worked off without monopolising
     * the database's I/O. Default none.
     */
    public Builder pauseBetweenBatches(Duration pauseBetweenBatches) {
      Objects.requireNonNull(pauseBetweenBatches, "pauseBetweenBatches");
      if (pauseBetweenBatches.isNegative()) {
        throw new IllegalArgumentException(
            "retention pauseBetweenBatches must not be negative; was " + pauseBetweenBatches);
      }
      this.pauseBetweenBatches = pauseBetweenBatches;
      return this;
    }

    /** Tests drive the budget and the pauses with their own clock. */
    Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public RetentionCleaner build() {
      return new RetentionCleaner(this);
    }
  }
}
