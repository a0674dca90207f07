package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Target;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/** The relay bench's table of medians and its figures in the common {@code iox bench} table. */
final class RelayBenchReport {

  /**
   * The relay's backlog drain against a plain producer of the same records, which has no database
   * to read: Kafka Connect's drain is the anchor the relay must match, this one how far it is from
   * Kafka's own ceiling.
   */
  static final double TARGET_PLAIN_PRODUCER_RATIO = 0.3;

  private final BenchFigures figures;
  private final PrintStream out;
  private final Duration pollInterval;
  private final int events;
  private final int rate;

  RelayBenchReport(
      BenchFigures figures, PrintStream out, Duration pollInterval, int events, int rate) {
    this.figures = figures;
    this.out = out;
    this.pollInterval = pollInterval;
    this.events = events;
    this.rate = rate;
  }

  void print(List<RelayBench.Run> runs) {
    out.printf(
        "%nrelay, median of %d (poll interval %d ms, %d events per run)%n",
        runs.size(), pollInterval.toMillis(), events);
    out.printf("%-58s %12s %16s %10s%n", "figure", "median", "spread", "target");
    row(
        runs,
        "events/s written (one transaction each, " + RelayBench.WRITERS + " connections)",
        RelayBench.Run::writtenPerSecond,
        "%.0f",
        "" + rate);
    row(runs, "commit-to-consumer p50 ms", RelayBench.Run::p50, "%.0f", "");
    row(runs, "commit-to-consumer p99 ms", RelayBench.Run::p99, "%.0f", "<= 100");
    row(
        runs,
        "  commit to read from the slot p50 ms (Debezium lag samples)",
        RelayBench.Run::readP50,
        "%.0f",
        "");
    row(
        runs,
        "  commit to read from the slot p99 ms (Debezium lag samples)",
        RelayBench.Run::readP99,
        "%.0f",
        "");
    row(
        runs,
        "  commit to acknowledged and stamped (relay) p50 ms",
        RelayBench.Run::ackP50,
        "%.0f",
        "");
    row(
        runs,
        "  commit to acknowledged and stamped (relay) p99 ms",
        RelayBench.Run::ackP99,
        "%.0f",
        "");
    row(runs, "events per relay batch", RelayBench.Run::eventsPerBatch, "%.1f", "");
    row(
        runs,
        "burst: events/s written (" + RelayBench.BURST_TRANSACTION + " per transaction)",
        RelayBench.Run::burstWrittenPerSecond,
        "%.0f",
        "");
    row(runs, "burst: events per relay batch", RelayBench.Run::burstEventsPerBatch, "%.1f", "");
    row(
        runs,
        "burst: commit to read from the slot, max ms",
        RelayBench.Run::burstReadMax,
        "%.0f",
        "");
    row(
        runs,
        "burst: relay events/s (first commit to last ack)",
        RelayBench.Run::relayPerSecond,
        "%.0f",
        "");
    row(
        runs,
        "backlog: relay events/s (first hand-over to last ack)",
        RelayBench.Run::backlogPerSecond,
        "%.0f",
        "");
    row(
        runs,
        "backlog, published_at not stamped: relay events/s",
        RelayBench.Run::unstampedBacklogPerSecond,
        "%.0f",
        "");
    if (connectMeasured(runs)) {
      row(
          runs,
          "backlog: Kafka Connect events/s (first to last appended)",
          RelayBench.Run::connectBacklogPerSecond,
          "%.0f",
          "");
    }
    row(runs, "plain KafkaProducer events/s", RelayBench.Run::plainPerSecond, "%.0f", "");
    row(
        runs,
        "backlog relay / plain producer",
        run -> run.backlogPerSecond() / run.plainPerSecond(),
        "%.2f",
        ">= " + TARGET_PLAIN_PRODUCER_RATIO);
    if (connectMeasured(runs)) {
      row(
          runs,
          "backlog relay / Kafka Connect",
          run -> run.backlogPerSecond() / run.connectBacklogPerSecond(),
          "%.2f",
          ">= 1.0");
    }
    addFigures(runs);
  }

  /** Whether every run drained the backlog through Kafka Connect too (not skipped, came up). */
  private static boolean connectMeasured(List<RelayBench.Run> runs) {
    return runs.stream().noneMatch(run -> Double.isNaN(run.connectBacklogPerSecond()));
  }

  /** The relay's targets, in the bench's common table and JSON. */
  private void addFigures(List<RelayBench.Run> runs) {
    figures.add(
        "relay",
        "events written at " + rate + "/s asked (" + RelayBench.WRITERS + " connections)",
        "events/s",
        Better.HIGHER,
        samples(runs, RelayBench.Run::writtenPerSecond),
        Optional.empty(),
        Optional.empty());
    figures.add(
        "relay",
        "commit-to-consumer p50",
        "ms",
        Better.LOWER,
        samples(runs, RelayBench.Run::p50),
        Optional.empty(),
        Optional.empty());
    figures.add(
        "relay",
        "commit-to-consumer p99",
        "ms",
        Better.LOWER,
        samples(runs, RelayBench.Run::p99),
        Optional.empty(),
        Optional.of(Target.atMost(100)));
    BenchFigures.Figure plain =
        figures.add(
            "relay",
            "plain KafkaProducer, same records",
            "events/s",
            Better.HIGHER,
            samples(runs, RelayBench.Run::plainPerSecond),
            Optional.empty(),
            Optional.empty());
    figures.add(
        "relay",
        "relay draining a backlog",
        "events/s",
        Better.HIGHER,
        samples(runs, RelayBench.Run::backlogPerSecond),
        Optional.of(plain),
        Optional.of(Target.ratioAtLeast(TARGET_PLAIN_PRODUCER_RATIO)));
    if (connectMeasured(runs)) {
      BenchFigures.Figure connect =
          figures.add(
              "relay",
              "Kafka Connect draining the same backlog",
              "events/s",
              Better.HIGHER,
              samples(runs, RelayBench.Run::connectBacklogPerSecond),
              Optional.empty(),
              Optional.empty());
      figures.add(
          "relay",
          "relay backlog drain",
          "events/s",
          Better.HIGHER,
          samples(runs, RelayBench.Run::backlogPerSecond),
          Optional.of(connect),
          Optional.of(Target.ratioAtLeast(1.0)));
    }
    figures.add(
        "relay",
        "relay draining a backlog, published_at not stamped",
        "events/s",
        Better.HIGHER,
        samples(runs, RelayBench.Run::unstampedBacklogPerSecond),
        Optional.of(plain),
        Optional.empty());
    figures.add(
        "relay",
        "relay, burst while running (500 per transaction)",
        "events/s",
        Better.HIGHER,
        samples(runs, RelayBench.Run::relayPerSecond),
        Optional.of(plain),
        Optional.empty());
  }

  private static List<Double> samples(
      List<RelayBench.Run> runs, ToDoubleFunction<RelayBench.Run> figure) {
    return runs.stream().map(figure::applyAsDouble).toList();
  }

  private void row(
      List<RelayBench.Run> runs,
      String name,
      ToDoubleFunction<RelayBench.Run> figure,
      String format,
      String target) {
    List<Double> values = new ArrayList<>(runs.stream().map(figure::applyAsDouble).toList());
    Collections.sort(values);
    out.printf(
        "%-58s %12s %16s %10s%n",
        name,
        format.formatted(values.get(values.size() / 2)),
        format.formatted(values.get(0)) + "-" + format.formatted(values.get(values.size() - 1)),
        target);
  }
}
