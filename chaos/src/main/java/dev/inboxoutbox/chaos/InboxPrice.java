package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.report.CpuByComponent;
import dev.inboxoutbox.chaos.report.Report;
import dev.inboxoutbox.chaos.report.Throughput;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Target;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * {@code iox chaos --inbox-price}: what exactly-once effects cost end to end. Pairs of fault-free
 * runs of one load each (a seed per pair): the services as they are, and the same services with
 * their inboxes off ({@link NegativeControl#INBOX_OFF}). Which arm goes first alternates from pair
 * to pair, so that neither gains from the machine's drift. The figures are the orders each arm
 * settled per second over its window and the CPU it used per settled order, as median and spread,
 * with the ratio of the services with their inboxes to the baseline without.
 */
final class InboxPrice {

  static final String PART = "inbox price";

  /** Pairs of runs when {@code --repeat} is not given. */
  static final int DEFAULT_PAIRS = 3;

  /** Orders/s with the inboxes at least this share of those without. */
  static final double TARGET_RATIO = 0.85;

  /** One chaos run of the given options, to its report's figures. */
  @FunctionalInterface
  interface Runs {
    Sample run(ChaosOptions options) throws Exception;
  }

  /**
   * What one run gives the comparison.
   *
   * @param settledPerSecond empty when no sample within the window read the orders database
   * @param cpuMillisPerSettledOrder all the run's processes; empty where /proc cannot be read
   * @param violated the invariants the run violated: none expected with the inboxes, the inbox's
   *     own with them off
   */
  record Sample(
      Verdict verdict,
      Optional<Double> settledPerSecond,
      Optional<Double> cpuMillisPerSettledOrder,
      List<String> violated) {

    static Sample of(Report report) {
      return new Sample(
          report.verdict(),
          report.throughput().map(Throughput::settledPerSecond),
          report.cpu().components().stream()
              .filter(row -> row.component().equals(CpuByComponent.ALL))
              .findFirst()
              .map(CpuByComponent.Row::cpuMillisPerSettledOrder),
          report.violated());
    }
  }

  /**
   * Each arm's samples, in the order run.
   *
   * @param incomplete why the comparison stopped before its last pair: a run that failed, whose
   *     pairs before it still count
   */
  record Result(List<Sample> withInboxes, List<Sample> inboxesOff, Optional<String> incomplete) {

    Result(List<Sample> withInboxes, List<Sample> inboxesOff) {
      this(withInboxes, inboxesOff, Optional.empty());
    }

    /**
     * 0 when every run with the inboxes passed and each run has its throughput; 1 (FAIL) when a run
     * with the inboxes violated an invariant, a run could not be measured or one failed. The runs
     * with the inboxes off are not held to the invariants: they are the baseline.
     */
    int exitCode() {
      if (incomplete.isPresent()) {
        return Verdict.FAIL.exitCode();
      }
      boolean measured =
          withInboxes.stream().allMatch(sample -> sample.settledPerSecond().isPresent())
              && inboxesOff.stream().allMatch(sample -> sample.settledPerSecond().isPresent());
      boolean passed = withInboxes.stream().allMatch(sample -> sample.verdict() == Verdict.PASS);
      return measured && passed ? 0 : Verdict.FAIL.exitCode();
    }

    /** The table: orders/s with the ratio and target, CPU-ms per order with its ratio. */
    BenchFigures figures() {
      BenchFigures figures = new BenchFigures();
      incomplete.ifPresent(reason -> figures.note("INCOMPLETE: " + reason));
      Optional<BenchFigures.Figure> offRate =
          figure(
              figures,
              "orders/s settled, inboxes off",
              "orders/s",
              Better.HIGHER,
              inboxesOff,
              Sample::settledPerSecond,
              Optional.empty(),
              Optional.empty());
      figure(
          figures,
          "orders/s settled, with the inboxes",
          "orders/s",
          Better.HIGHER,
          withInboxes,
          Sample::settledPerSecond,
          offRate,
          Optional.of(Target.ratioAtLeast(TARGET_RATIO)));
      Optional<BenchFigures.Figure> offCpu =
          figure(
              figures,
              "CPU per settled order, inboxes off",
              "ms",
              Better.LOWER,
              inboxesOff,
              Sample::cpuMillisPerSettledOrder,
              Optional.empty(),
              Optional.empty());
      figure(
          figures,
          "CPU per settled order, with the inboxes",
          "ms",
          Better.LOWER,
          withInboxes,
          Sample::cpuMillisPerSettledOrder,
          offCpu,
          Optional.empty());
      figures.note(
          "verdicts with the inboxes: "
              + verdicts(withInboxes)
              + "; inboxes off (the baseline, not held to the invariants): "
              + verdicts(inboxesOff));
      return figures;
    }

    private static Optional<BenchFigures.Figure> figure(
        BenchFigures figures,
        String name,
        String unit,
        Better better,
        List<Sample> samples,
        Function<Sample, Optional<Double>> value,
        Optional<BenchFigures.Figure> baseline,
        Optional<Target> target) {
      List<Double> values = new ArrayList<>();
      samples.forEach(sample -> value.apply(sample).ifPresent(values::add));
      if (values.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(figures.add(PART, name, unit, better, values, baseline, target));
    }

    private static String verdicts(List<Sample> samples) {
      List<String> each = new ArrayList<>();
      for (Sample sample : samples) {
        each.add(
            sample.violated().isEmpty()
                ? sample.verdict().name()
                : sample.verdict().name() + " (" + String.join(", ", sample.violated()) + ")");
      }
      return String.join("; ", each);
    }
  }

  private InboxPrice() {}

  /**
   * Runs a warm-up run (the services with their inboxes, seed {@code base.seed() - 1}, not
   * counted), then {@code pairs} pairs of arms, the pair's seed {@code base.seed() + pair}, the
   * services with their inboxes first in even pairs and last in odd ones, and returns every counted
   * sample. The first run of a command settled a fifth to a third fewer orders than the runs after
   * it: the {@code iox} JVM, which outlives the runs, compiles the load and the provider during it.
   * A run that fails ends the comparison with the pairs before it; a stop ({@code stopped}) ends it
   * with the run's exception.
   */
  static Result measure(
      ChaosOptions base, int pairs, Runs runs, BooleanSupplier stopped, PrintStream out)
      throws Exception {
    List<Sample> withInboxes = new ArrayList<>();
    List<Sample> inboxesOff = new ArrayList<>();
    String running = "the warm-up run";
    try {
      out.printf("%n%s: a warm-up run, not counted, %s%n", PART, describe(NegativeControl.NONE));
      runs.run(base.forArm(base.seed() - 1, NegativeControl.NONE));
      for (int pair = 0; pair < pairs; pair++) {
        // A pair counts once both its runs are in: the arms stay paired if the second fails.
        Map<NegativeControl, Sample> ran = new EnumMap<>(NegativeControl.class);
        for (NegativeControl arm : armsOf(pair)) {
          running = String.format("pair %d of %d, %s", pair + 1, pairs, describe(arm));
          out.printf("%n%s: %s%n", PART, running);
          ran.put(arm, runs.run(base.forArm(base.seed() + pair, arm)));
        }
        withInboxes.add(ran.get(NegativeControl.NONE));
        inboxesOff.add(ran.get(NegativeControl.INBOX_OFF));
      }
    } catch (Exception e) {
      if (stopped.getAsBoolean()) {
        throw e;
      }
      return new Result(withInboxes, inboxesOff, Optional.of(running + ", failed: " + e));
    }
    return new Result(withInboxes, inboxesOff);
  }

  private static String describe(NegativeControl arm) {
    return arm == NegativeControl.NONE ? "the services with their inboxes" : "the inboxes off";
  }

  /** The arms of one pair in the order they run. */
  static List<NegativeControl> armsOf(int pair) {
    return pair % 2 == 0
        ? List.of(NegativeControl.NONE, NegativeControl.INBOX_OFF)
        : List.of(NegativeControl.INBOX_OFF, NegativeControl.NONE);
  }
}
