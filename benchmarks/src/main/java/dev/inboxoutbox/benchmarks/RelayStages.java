package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.relay.RelayListener.BatchTimings;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * The relay's batches of one bench phase, split by stage ({@link BatchTimings}), with the JVM's
 * garbage collection time over the same phase (the broker, the relay and the bench share the JVM).
 */
final class RelayStages {

  /** A stage of the relay's path and how to read it from a batch. */
  record Stage(String name, Function<BatchTimings, Duration> time, boolean onThePath) {}

  static final List<Stage> STAGES =
      List.of(
          new Stage(
              "slot read to hand-over, oldest of batch (queue, Event Router)",
              BatchTimings::readToHandover,
              false),
          new Stage(
              "between batches (engine poll, transforms, idle)",
              BatchTimings::sinceLastBatch,
              true),
          new Stage("convert and send to the producer", BatchTimings::send, true),
          new Stage("flush and wait for acks", BatchTimings::acknowledge, true),
          new Stage("stamp published_at", BatchTimings::stamp, true),
          new Stage("listeners", BatchTimings::listeners, true),
          new Stage("mark processed + offset commit", BatchTimings::markProcessed, true));

  private final List<BatchTimings> batches = Collections.synchronizedList(new ArrayList<>());
  private long gcMillisAtStart;
  private long gcCountAtStart;

  void add(BatchTimings timings) {
    if (timings.events() == 0) {
      return;
    }
    synchronized (batches) {
      // A phase's first batch may follow the engine's start or a heartbeat: the wait before it is
      // not the relay's time within the phase.
      batches.add(batches.isEmpty() ? withoutWaitBefore(timings) : timings);
    }
  }

  private static BatchTimings withoutWaitBefore(BatchTimings timings) {
    return new BatchTimings(
        timings.events(),
        timings.records(),
        timings.readToHandover(),
        Duration.ZERO,
        timings.send(),
        timings.acknowledge(),
        timings.stamp(),
        timings.listeners(),
        timings.markProcessed());
  }

  void reset() {
    batches.clear();
    gcMillisAtStart = gcMillis();
    gcCountAtStart = gcCount();
  }

  int events() {
    synchronized (batches) {
      return batches.stream().mapToInt(BatchTimings::events).sum();
    }
  }

  /** Total time of a stage over the phase, in ms (the "between batches" stage includes idling). */
  double totalMillis(Stage stage) {
    synchronized (batches) {
      return batches.stream().mapToLong(b -> stage.time().apply(b).toNanos()).sum() / 1e6;
    }
  }

  double maxMillis(Stage stage) {
    synchronized (batches) {
      return batches.stream().mapToLong(b -> stage.time().apply(b).toNanos()).max().orElse(0) / 1e6;
    }
  }

  double gcMillisSinceReset() {
    return gcMillis() - gcMillisAtStart;
  }

  long gcCountSinceReset() {
    return gcCount() - gcCountAtStart;
  }

  void print(PrintStream out, String phase, double wallMillis) {
    int events = events();
    int batchCount = batches.size();
    out.printf(
        "  %s: %d batches, %d events, %.0f ms wall, GC %d collections %.0f ms%n",
        phase, batchCount, events, wallMillis, gcCountSinceReset(), gcMillisSinceReset());
    out.printf(
        "    %-56s %10s %10s %10s %8s%n", "stage", "total ms", "us/event", "max ms", "% wall");
    for (Stage stage : STAGES) {
      double total = totalMillis(stage);
      if (!stage.onThePath()) {
        // A latency per batch, overlapping the other stages: its mean, not a share of the wall.
        out.printf(
            "    %-56s %10s %10s %10.1f %8s   (mean %.1f ms per batch)%n",
            stage.name(),
            "-",
            "-",
            maxMillis(stage),
            "-",
            batches.isEmpty() ? 0 : total / batches.size());
        continue;
      }
      out.printf(
          "    %-56s %10.1f %10.1f %10.1f %7.0f%%%n",
          stage.name(),
          total,
          events == 0 ? 0 : total * 1000 / events,
          maxMillis(stage),
          wallMillis <= 0 ? 0 : 100 * total / wallMillis);
    }
  }

  private static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionTime)
        .sum();
  }

  private static long gcCount() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionCount)
        .sum();
  }
}
