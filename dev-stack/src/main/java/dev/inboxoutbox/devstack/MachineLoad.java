package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * How busy the whole machine was during a run, read from Linux's {@code /proc/stat}. A chaos run is
 * CPU-bound, so it takes about the CPU-seconds it needed divided by the cores it had. On a
 * contended host the same work needs more CPU-seconds, and this figure tells such a run apart from
 * a regression.
 */
public record MachineLoad(
    int cores, double busyCpuSeconds, double idleCpuSeconds, double stolenCpuSeconds) {

  private static final Path PROC_STAT = Path.of("/proc/stat");

  /**
   * USER_HZ, the unit of {@code /proc/stat} and {@code /proc/<pid>/stat}: 100 on every architecture
   * Linux ships a JDK for.
   */
  public static final double TICKS_PER_SECOND = 100;

  /** Cumulative CPU ticks of all cores since boot. */
  public record Sample(long busy, long idle, long stolen) {

    /** Empty where there is no {@code /proc/stat} (not Linux) or it cannot be read. */
    public static Optional<Sample> read() {
      try {
        return Files.isReadable(PROC_STAT)
            ? Optional.of(parse(Files.readAllLines(PROC_STAT).get(0)))
            : Optional.empty();
      } catch (IOException | RuntimeException e) {
        return Optional.empty();
      }
    }

    /** The aggregate line: {@code cpu user nice system idle iowait irq softirq steal ...}. */
    static Sample parse(String cpuLine) {
      String[] field = cpuLine.trim().split("\\s+");
      if (!field[0].equals("cpu") || field.length < 9) {
        throw new IllegalArgumentException("not the aggregate cpu line of /proc/stat: " + cpuLine);
      }
      long user = Long.parseLong(field[1]);
      long nice = Long.parseLong(field[2]);
      long system = Long.parseLong(field[3]);
      long idle = Long.parseLong(field[4]);
      long ioWait = Long.parseLong(field[5]);
      long irq = Long.parseLong(field[6]);
      long softIrq = Long.parseLong(field[7]);
      long steal = Long.parseLong(field[8]);
      return new Sample(user + nice + system + irq + softIrq, idle + ioWait, steal);
    }
  }

  /** The load from {@code start} until now, on every core; empty where either cannot be read. */
  public static Optional<MachineLoad> since(Optional<Sample> start) {
    return start.flatMap(
        first ->
            Sample.read()
                .map(end -> between(first, end, Runtime.getRuntime().availableProcessors())));
  }

  static MachineLoad between(Sample start, Sample end, int cores) {
    return new MachineLoad(
        cores,
        (end.busy() - start.busy()) / TICKS_PER_SECOND,
        (end.idle() - start.idle()) / TICKS_PER_SECOND,
        (end.stolen() - start.stolen()) / TICKS_PER_SECOND);
  }

  public String describe() {
    return String.format(
        Locale.ROOT,
        "machine: %d cores; during the run %.0f CPU-seconds busy (all processes), %.0f idle, %.1f stolen",
        cores,
        busyCpuSeconds,
        idleCpuSeconds,
        stolenCpuSeconds);
  }
}
