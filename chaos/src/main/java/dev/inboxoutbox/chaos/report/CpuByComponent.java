package dev.inboxoutbox.chaos.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The CPU the run's processes used from the load's start until the run went quiet, by component
 * (the Kafka brokers, each service summed over its instances and restarts, PostgreSQL, the {@code
 * iox} JVM), per order settled in that time, and as a share of what the whole machine was busy.
 *
 * @param available false where there is no {@code /proc} to read (not Linux); {@code note} then
 *     says so and there are no rows
 * @param settledOrders orders paid, payment failed or cancelled when the run went quiet
 * @param machineBusyCpuSeconds every core's busy time over the same span, all processes of the
 *     machine; null where it cannot be read
 * @param components one row per component, then the run's processes together, then the rest of the
 *     machine
 * @param note where components run that have no row of their own
 */
public record CpuByComponent(
    boolean available,
    long settledOrders,
    Double machineBusyCpuSeconds,
    List<Row> components,
    String note) {

  /** The row of the run's processes together. */
  public static final String ALL = "all the run's processes";

  /** The row of what the rest of the machine used: other work on a shared host. */
  public static final String OTHERS = "other processes on the machine";

  /**
   * @param processes how many processes the component had, restarts included
   * @param cpuMillisPerSettledOrder null when no order settled, or for the rest of the machine
   * @param shareOfMachineBusy 0 to 1; null when the machine's busy time is unknown
   */
  public record Row(
      String component,
      Integer processes,
      double cpuSeconds,
      Double cpuMillisPerSettledOrder,
      Double shareOfMachineBusy) {}

  public CpuByComponent {
    components = List.copyOf(components);
  }

  public static CpuByComponent unavailable(String reason) {
    return new CpuByComponent(false, 0, null, List.of(), reason);
  }

  /** How much CPU a component used and in how many processes. */
  public record Used(int processes, double cpuSeconds) {}

  /**
   * The rows for what each component used (in the map's order), with the run's total and, when the
   * machine's busy time is known, the rest of the machine.
   */
  public static CpuByComponent of(
      Map<String, Used> used, long settledOrders, Optional<Double> machineBusy, String note) {
    List<Row> rows = new ArrayList<>();
    int processes = 0;
    double total = 0;
    for (Map.Entry<String, Used> component : used.entrySet()) {
      rows.add(row(component.getKey(), component.getValue(), settledOrders, machineBusy));
      processes += component.getValue().processes();
      total += component.getValue().cpuSeconds();
    }
    rows.add(row(ALL, new Used(processes, total), settledOrders, machineBusy));
    if (machineBusy.isPresent()) {
      double others = Math.max(0, machineBusy.get() - total);
      rows.add(new Row(OTHERS, null, others, null, share(others, machineBusy).orElse(null)));
    }
    return new CpuByComponent(true, settledOrders, machineBusy.orElse(null), rows, note);
  }

  private static Row row(
      String component, Used used, long settledOrders, Optional<Double> machineBusy) {
    return new Row(
        component,
        used.processes(),
        used.cpuSeconds(),
        settledOrders > 0 ? used.cpuSeconds() * 1000 / settledOrders : null,
        share(used.cpuSeconds(), machineBusy).orElse(null));
  }

  private static Optional<Double> share(double cpuSeconds, Optional<Double> machineBusy) {
    return machineBusy.filter(busy -> busy > 0).map(busy -> cpuSeconds / busy);
  }

  /** The console's table, or the reason there is none. */
  List<String> lines() {
    if (!available) {
      return List.of("CPU by component: not available (" + note + ")");
    }
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "CPU by component, from the load's start until quiet (%d orders settled%s):",
            settledOrders,
            machineBusyCpuSeconds == null
                ? ""
                : String.format(
                    Locale.ROOT, "; the machine %.1f CPU-seconds busy", machineBusyCpuSeconds)));
    lines.add(
        String.format(
            "%-40s %9s %10s %14s %14s",
            "component", "processes", "CPU-s", "CPU-ms/order", "share of busy"));
    for (Row row : components) {
      lines.add(
          String.format(
              Locale.ROOT,
              "%-40s %9s %10.1f %14s %14s",
              row.component(),
              row.processes() == null ? "-" : row.processes(),
              row.cpuSeconds(),
              row.cpuMillisPerSettledOrder() == null
                  ? "-"
                  : String.format(Locale.ROOT, "%.1f", row.cpuMillisPerSettledOrder()),
              percent(row.shareOfMachineBusy())));
    }
    if (!note.isEmpty()) {
      lines.add(note);
    }
    return lines;
  }

  static String percent(Double share) {
    return share == null ? "-" : String.format(Locale.ROOT, "%.1f%%", share * 100);
  }
}
