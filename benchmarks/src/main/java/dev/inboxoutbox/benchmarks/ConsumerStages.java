package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.ConsumerStats.Stage;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where a consumer run's time went, stage by stage ({@link Stage}): the inbox consumer's own {@link
 * ConsumerStats#stageNanos()}, and the same stages timed by the bench in its loop without an inbox
 * ({@link Timer}). Each consumer thread is measured over its {@link Span}: from the database commit
 * of its first batch to that of its last, so that every stage time counted lies within it (the
 * first batch, whose poll includes joining the group, and the last offset commit are left out). A
 * stage's share is its time over the threads' spans added up; what no stage covers is "other":
 * polls that returned nothing, the loop itself, the bench's hooks.
 */
final class ConsumerStages {

  /** The stages the loop without an inbox has: no validation, claim, correction, dead letters. */
  static final Set<Stage> PLAIN =
      Collections.unmodifiableSet(
          EnumSet.of(Stage.POLL, Stage.HANDLER, Stage.COMMIT, Stage.OFFSET_COMMIT));

  /** Every stage, for the inbox consumer. */
  static final Set<Stage> INBOX = Collections.unmodifiableSet(EnumSet.allOf(Stage.class));

  static final String OTHER = "other (idle polls, loop)";

  private ConsumerStages() {}

  /**
   * One run of one arm: its rate, and over its threads' spans, the records, the time and the time
   * per stage. {@code threadNanos} is zero when no thread did more than one batch.
   */
  record Run(double rate, long records, long threadNanos, Map<Stage, Long> stageNanos) {

    Run {
      Map<Stage, Long> copy = new EnumMap<>(Stage.class);
      copy.putAll(stageNanos);
      stageNanos = Collections.unmodifiableMap(copy);
    }

    /** The spans of a run's consumer threads, added up. */
    static Run of(double rate, Collection<Span> spans) {
      long records = 0;
      long nanos = 0;
      Map<Stage, Long> stages = new EnumMap<>(Stage.class);
      for (Span span : spans) {
        synchronized (span) {
          if (span.atLast == null) {
            continue;
          }
          records += span.records;
          nanos += span.lastNanos - span.firstNanos;
          for (Stage stage : Stage.values()) {
            long within =
                span.atLast.getOrDefault(stage, 0L) - span.atFirst.getOrDefault(stage, 0L);
            stages.merge(stage, within, Long::sum);
          }
        }
      }
      return new Run(rate, records, nanos, stages);
    }

    long nanos(Stage stage) {
      return stageNanos.getOrDefault(stage, 0L);
    }

    /** Percent of the run's thread time spent in {@code stage}. */
    double share(Stage stage) {
      return 100.0 * nanos(stage) / threadNanos;
    }

    /** Percent of the run's thread time no stage covers. */
    double otherShare() {
      long staged = stageNanos.values().stream().mapToLong(Long::longValue).sum();
      return 100.0 * (threadNanos - staged) / threadNanos;
    }
  }

  /**
   * One consumer thread's span: told after each batch's database commit (on that thread) the stage
   * times so far, it keeps those at its first batch and at its latest, and the records between.
   */
  static final class Span {
    private Map<Stage, Long> atFirst;
    private long firstNanos;
    private Map<Stage, Long> atLast;
    private long lastNanos;
    private long records;

    synchronized void batchDone(int batchRecords, Map<Stage, Long> stagesSoFar) {
      long now = System.nanoTime();
      if (atFirst == null) {
        atFirst = stagesSoFar;
        firstNanos = now;
        return;
      }
      atLast = stagesSoFar;
      lastNanos = now;
      records += batchRecords;
    }
  }

  /**
   * The bench's clock for one thread of its loop without an inbox, timed the way the inbox consumer
   * times its own.
   */
  static final class Timer {
    private final long[] nanos = new long[Stage.values().length];

    /** Adds the time since {@code started} to {@code stage}; returns now. */
    long since(Stage stage, long started) {
      long now = System.nanoTime();
      nanos[stage.ordinal()] += now - started;
      return now;
    }

    Map<Stage, Long> nanos() {
      Map<Stage, Long> snapshot = new EnumMap<>(Stage.class);
      for (Stage stage : Stage.values()) {
        snapshot.put(stage, nanos[stage.ordinal()]);
      }
      return snapshot;
    }
  }

  static String label(Stage stage) {
    return switch (stage) {
      case POLL -> "poll";
      case VALIDATION -> "validation and hashing";
      case CLAIM -> "claim";
      case HANDLER -> "handler";
      case CORRECTION -> "outcome correction";
      case COMMIT -> "commit (and connection)";
      case DEAD_LETTERS -> "dead letters";
      case OFFSET_COMMIT -> "offset commit";
    };
  }

  /**
   * Both arms of a shape side by side, over their measured runs: each stage's share of the thread
   * time and its microseconds per record.
   */
  static void print(PrintStream out, String shape, List<Run> inbox, List<Run> plain) {
    out.printf(
        "  where the time goes, %s, %d measured run(s): %% of the consumer threads' time from"
            + " their first batch's commit to their last's, us per record%n",
        shape, inbox.size());
    String format = "    %-28s %8s %9s   %8s %9s%n";
    out.printf(format, "stage", "inbox", "", "no inbox", "");
    for (Stage stage : Stage.values()) {
      out.printf(
          format,
          label(stage),
          INBOX.contains(stage) ? percent(inbox, share(inbox, stage)) : "-",
          INBOX.contains(stage) ? micros(inbox, sum(inbox, stage)) : "-",
          PLAIN.contains(stage) ? percent(plain, share(plain, stage)) : "-",
          PLAIN.contains(stage) ? micros(plain, sum(plain, stage)) : "-");
    }
    out.printf(
        format,
        OTHER,
        percent(inbox, otherShare(inbox)),
        "",
        percent(plain, otherShare(plain)),
        "");
    out.printf(
        format,
        "total",
        percent(inbox, 100),
        micros(inbox, threadNanos(inbox)),
        percent(plain, 100),
        micros(plain, threadNanos(plain)));
  }

  /**
   * One detail figure per stage of the arm and one for "other", named {@code "<shape> <arm>:
   * <stage>"}, in % of thread time, one sample per measured run.
   */
  static void addFigures(
      BenchFigures figures,
      String part,
      String shape,
      String arm,
      Set<Stage> stages,
      List<Run> runs) {
    List<Run> measured = runs.stream().filter(run -> run.threadNanos() > 0).toList();
    if (measured.isEmpty()) {
      return;
    }
    for (Stage stage : stages) {
      List<Double> samples = new ArrayList<>();
      measured.forEach(run -> samples.add(run.share(stage)));
      figures.addDetail(
          part, shape + " " + arm + ": " + label(stage), "% of time", Better.LOWER, samples);
    }
    List<Double> other = new ArrayList<>();
    measured.forEach(run -> other.add(run.otherShare()));
    figures.addDetail(part, shape + " " + arm + ": " + OTHER, "% of time", Better.LOWER, other);
  }

  /** A stage's share over several runs: its time over their thread time. */
  static double share(List<Run> runs, Stage stage) {
    return 100.0 * sum(runs, stage) / threadNanos(runs);
  }

  static double otherShare(List<Run> runs) {
    long staged = 0;
    for (Stage stage : Stage.values()) {
      staged += sum(runs, stage);
    }
    return 100.0 * (threadNanos(runs) - staged) / threadNanos(runs);
  }

  /** A share, or "-" when the runs have no span to measure (no thread did two batches). */
  private static String percent(List<Run> runs, double share) {
    return threadNanos(runs) > 0 ? String.format(Locale.ROOT, "%.1f%%", share) : "-";
  }

  /** Nanoseconds over the runs' records in microseconds per record, or "-" without records. */
  private static String micros(List<Run> runs, long nanos) {
    long records = runs.stream().mapToLong(Run::records).sum();
    return records > 0 ? String.format(Locale.ROOT, "%.1f", nanos / 1e3 / records) : "-";
  }

  private static long sum(List<Run> runs, Stage stage) {
    return runs.stream().mapToLong(run -> run.nanos(stage)).sum();
  }

  private static long threadNanos(List<Run> runs) {
    return runs.stream().mapToLong(Run::threadNanos).sum();
  }
}
