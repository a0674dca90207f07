package dev.inboxoutbox.chaos.report;

import dev.inboxoutbox.chaos.fault.FaultLog;
import dev.inboxoutbox.chaos.fleet.Kill;
import dev.inboxoutbox.chaos.verify.FaultRecovery;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The HTML page of a chaos run: the verdict, a timeline (inline SVG with axes, units and a labelled
 * marker per fault), the fault table with the recovery after each, the duplicates and dead letters,
 * the end-to-end latency and the invariants. No script: it opens anywhere, also from a CI artefact.
 */
final class ReportPage {

  private static final double PLOT_WIDTH = 1000;
  private static final double PLOT_HEIGHT = 320;
  private static final double LEFT = 80;
  private static final double TOP = 70;
  private static final double BOTTOM = 50;
  private static final double RIGHT = 30;

  /** One drawn series of the timeline; a value is null where the run could not read it. */
  private record Series(Function<TimelinePoint, Long> value, String label, String colour) {}

  private static final List<Series> SERIES =
      List.of(
          new Series(point -> point.sent(), "records sent", "#64748b"),
          new Series(TimelinePoint::orders, "orders placed", "#2563eb"),
          new Series(TimelinePoint::settled, "orders settled (paid or payment failed)", "#16a34a"),
          new Series(point -> point.duplicatesAbsorbed(), "duplicates absorbed", "#9333ea"));

  private final Verdict verdict;
  private final List<ProofFloors.Result> floors;
  private final String summary;
  private final String machine;
  private final List<TimelinePoint> timeline;
  private final List<Kill> killLog;
  private final RunFigures.Summary figures;
  private final List<Invariant> invariants;
  private final String throughput;
  private final CpuByComponent cpu;

  ReportPage(
      Verdict verdict,
      String summary,
      String machine,
      List<TimelinePoint> timeline,
      List<Kill> killLog,
      RunFigures.Summary figures,
      List<Invariant> invariants,
      List<ProofFloors.Result> floors,
      String throughput,
      CpuByComponent cpu) {
    this.verdict = verdict;
    this.throughput = throughput;
    this.cpu = cpu;
    this.floors = List.copyOf(floors);
    this.summary = summary;
    this.machine = machine;
    this.timeline = timeline;
    this.killLog = killLog;
    this.figures = figures;
    this.invariants = invariants;
  }

  String html() {
    return """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>iox chaos report</title>
        <style>
          body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
          table { border-collapse: collapse; margin-bottom: 1em; } td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; }
          td { vertical-align: top; } td:last-child { max-width: 45em; }
          td.n { text-align: right; font-variant-numeric: tabular-nums; }
          tr.pass td:nth-child(2) { color: #17803d; font-weight: bold; } tr.fail td:nth-child(2) { color: #c0262d; font-weight: bold; }
          .verdict { font-size: 1.6em; font-weight: bold; } .legend span { display: inline-block; margin-right: 1.5em; }
          .figures { display: flex; gap: 3em; flex-wrap: wrap; } .note { color: #555; font-size: 0.9em; max-width: 70em; }
        </style></head><body>
        <h1>iox chaos report</h1>
        <p class="verdict" style="color:%s">%s</p>
        <p>%s</p>
        <p>%s</p>
        <h2>Timeline</h2>
        <p class="legend">%s</p>
        %s
        <h2>Faults</h2>
        <p class="note">Times in seconds since the load started. <em>Orders moving again</em>: from the
        fault's end until the first order was placed or settled after it (empty when no order moved
        after it).</p>
        %s
        <div class="figures">
        <div><h2>Duplicates absorbed</h2>%s%s</div>
        <div><h2>Dead letters</h2>%s</div>
        <div><h2>End-to-end latency</h2>%s</div>
        </div>
        <p class="note">Duplicates by source: each consumer group's duplicate claims are attributed to
        the repeats the run knows it made (client retries sent, records the relay published twice,
        webhook copies the provider delivered) up to their number; the rest are Kafka redeliveries.
        Counts are sampled once a second from the services' metrics, so a killed instance's last
        second is missing: lower bounds.</p>
        <h2>Throughput and CPU</h2>
        <p>%s</p>
        %s
        <h2>Invariants</h2>
        <table><tr><th>invariant</th><th>result</th><th>checked</th><th>violations</th><th>detail</th></tr>
        %s</table>
        <h2>Proof floors</h2>
        <p class="note">What the run had to do before its verdict can pass: a claimed floor missed
        leaves it inconclusive; a floor not claimed says why.</p>
        <table><tr><th>proof floor</th><th>result</th><th>required</th><th>count</th><th>note</th></tr>
        %s</table>
        <h2>Raw data</h2><p>See report.json next to this file (same time base: milliseconds since the load started).</p>
        </body></html>
        """
        .formatted(
            switch (verdict) {
              case PASS -> "#17803d";
              case FAIL -> "#c0262d";
              case INCONCLUSIVE -> "#b45309";
            },
            switch (verdict) {
              case PASS -> "PASS: exactly-once effects held, every claimed floor met";
              case FAIL -> "FAIL: see the violations below";
              case INCONCLUSIVE -> "INCONCLUSIVE: every invariant held, a claimed floor was missed";
            },
            escape(summary),
            escape(machine),
            legend(),
            chart(),
            faultTable(),
            table("source", figures.duplicateSources()),
            table("consumer group", figures.duplicatesByOperation()),
            table("reason", figures.deadLettersByReason()),
            latencyTable(),
            escape(throughput),
            cpuTable(),
            invariantRows(),
            floorRows());
  }

  private String legend() {
    StringBuilder legend = new StringBuilder();
    for (Series series : SERIES) {
      legend
          .append("<span style=\"color:")
          .append(series.colour())
          .append("\">&#9632; ")
          .append(escape(series.label()))
          .append("</span>");
    }
    legend.append("<span style=\"color:#dc2626\">| process kill or crash point</span>");
    legend.append(
        "<span style=\"color:#b45309\">&#9646; infrastructure fault (numbered as in the fault"
            + " table)</span>");
    if (timeline.stream().anyMatch(point -> point.orders() == null || point.settled() == null)) {
      legend.append(
          "<span>a gap in a line: the orders database could not be read (down or"
              + " unreachable)</span>");
    }
    return legend.toString();
  }

  private List<FaultRecovery> infrastructureFaults() {
    return figures.faults().stream().filter(FaultRecovery::infrastructure).toList();
  }

  /** Kill times: the fleet's kill log, or the fault log's kills when the fleet keeps none. */
  private List<Long> killMillis() {
    List<Long> kills = new ArrayList<>();
    killLog.forEach(kill -> kills.add(kill.atMillis()));
    if (kills.isEmpty()) {
      figures.faults().stream()
          .filter(fault -> !fault.infrastructure())
          .forEach(fault -> kills.add(fault.startMillis()));
    }
    return kills;
  }

  private String chart() {
    if (timeline.isEmpty()) {
      return "<p>no samples</p>";
    }
    double maxMillis = Math.max(1000, timeline.get(timeline.size() - 1).atMillis());
    for (FaultRecovery fault : figures.faults()) {
      if (fault.endMillis() != null) {
        maxMillis = Math.max(maxMillis, fault.endMillis());
      }
    }
    double maxY = 1;
    for (TimelinePoint point : timeline) {
      for (Series series : SERIES) {
        Long value = series.value().apply(point);
        if (value != null) {
          maxY = Math.max(maxY, value);
        }
      }
    }
    double yStep = niceStep(maxY / 5);
    maxY = Math.ceil(maxY / yStep) * yStep;
    double xStepSeconds = niceStep(maxMillis / 1000 / 10);
    final double maxSeconds = maxMillis / 1000;
    final double yMax = maxY;

    StringBuilder svg = new StringBuilder();
    svg.append("<svg width=\"")
        .append(fmt(LEFT + PLOT_WIDTH + RIGHT))
        .append("\" height=\"")
        .append(fmt(TOP + PLOT_HEIGHT + BOTTOM))
        .append("\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"system-ui, sans-serif\">");
    svg.append("<g transform=\"translate(")
        .append(fmt(LEFT))
        .append(',')
        .append(fmt(TOP))
        .append(")\">");
    svg.append("<rect width=\"")
        .append(fmt(PLOT_WIDTH))
        .append("\" height=\"")
        .append(fmt(PLOT_HEIGHT))
        .append("\" fill=\"#fafafa\" stroke=\"#999\"/>");

    // y axis: counts
    for (double y = 0; y <= yMax + 1e-9; y += yStep) {
      double py = PLOT_HEIGHT - y / yMax * PLOT_HEIGHT;
      svg.append(line(0, py, PLOT_WIDTH, py, "#e5e5e5", 1));
      svg.append(text(-8, py + 4, "end", 11, String.format(Locale.ROOT, "%,d", (long) y)));
    }
    svg.append(
        "<text transform=\"translate(-62,%s) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">count (records, orders, duplicates)</text>"
            .formatted(fmt(PLOT_HEIGHT / 2)));

    // x axis: seconds since the load started
    for (double s = 0; s <= maxSeconds + 1e-9; s += xStepSeconds) {
      double px = s / maxSeconds * PLOT_WIDTH;
      svg.append(line(px, PLOT_HEIGHT, px, PLOT_HEIGHT + 5, "#444", 1));
      svg.append(text(px, PLOT_HEIGHT + 18, "middle", 11, fmt0(s)));
    }
    svg.append(
        text(PLOT_WIDTH / 2, PLOT_HEIGHT + 40, "middle", 12, "time since the load started (s)"));

    // infrastructure faults: a band from start to end (a line for an instant), numbered
    List<FaultRecovery> faults = infrastructureFaults();
    for (int i = 0; i < faults.size(); i++) {
      FaultRecovery fault = faults.get(i);
      double start = fault.startMillis() / 1000.0 / maxSeconds * PLOT_WIDTH;
      double end =
          (fault.endMillis() == null ? maxMillis : fault.endMillis())
              / 1000
              / maxSeconds
              * PLOT_WIDTH;
      String label = "#" + (i + 1) + " " + markerLabel(fault.kind());
      String title =
          label
              + " on "
              + fault.target()
              + ", "
              + seconds(fault.startMillis())
              + " s to "
              + seconds(fault.endMillis())
              + " s";
      svg.append("<g><title>").append(escape(title)).append("</title>");
      svg.append("<rect x=\"")
          .append(fmt(start))
          .append("\" y=\"0\" width=\"")
          .append(fmt(Math.max(2, end - start)))
          .append("\" height=\"")
          .append(fmt(PLOT_HEIGHT))
          .append(
              "\" fill=\"#f59e0b\" fill-opacity=\"0.25\" stroke=\"#b45309\" stroke-width=\"1\"/>");
      // Labels take turns on three rows above the plot so neighbours do not overlap.
      double labelY = -36 + 14 * (i % 3);
      svg.append(line(start, labelY + 3, start, 0, "#b45309", 1));
      svg.append(
          text(start + 2, labelY, "start", 11, label).replace("<text", "<text fill=\"#b45309\""));
      svg.append("</g>");
    }

    // kills: a short red tick at the bottom of the plot each
    for (long killAt : killMillis()) {
      double px = killAt / 1000.0 / maxSeconds * PLOT_WIDTH;
      svg.append(line(px, PLOT_HEIGHT - 14, px, PLOT_HEIGHT, "#dc2626", 2));
    }

    for (Series series : SERIES) {
      // A count the run could not read ends the line; the next one read starts a new line, so an
      // outage is a gap, not a drop to 0.
      List<String> run = new ArrayList<>();
      for (TimelinePoint point : timeline) {
        Long value = series.value().apply(point);
        if (value == null) {
          svg.append(polyline(run, series.colour()));
          run.clear();
          continue;
        }
        run.add(
            fmt(point.atMillis() / 1000.0 / maxSeconds * PLOT_WIDTH)
                + ','
                + fmt(PLOT_HEIGHT - value / yMax * PLOT_HEIGHT));
      }
      svg.append(polyline(run, series.colour()));
    }
    svg.append("</g></svg>");
    return svg.toString();
  }

  private String faultTable() {
    List<FaultRecovery> faults = infrastructureFaults();
    if (faults.isEmpty()) {
      return "<p>No infrastructure fault; " + processKills() + ".</p>";
    }
    StringBuilder rows = new StringBuilder();
    rows.append(
        "<table><tr><th>#</th><th>fault</th><th>target</th><th>start (s)</th><th>end (s)</th>"
            + "<th>lasted (ms)</th><th>orders moving again after (ms)</th></tr>");
    for (int i = 0; i < faults.size(); i++) {
      FaultRecovery fault = faults.get(i);
      Long end = fault.endMillis();
      Long recovery = fault.ordersMovingAgainAfterMillis();
      rows.append("<tr><td>")
          .append(i + 1)
          .append("</td><td>")
          .append(escape(shortKind(fault.kind())))
          .append("</td><td>")
          .append(escape(String.valueOf(fault.target())))
          .append("</td><td class=\"n\">")
          .append(seconds(fault.startMillis()))
          .append("</td><td class=\"n\">")
          .append(seconds(end))
          .append("</td><td class=\"n\">")
          .append(end == null ? "" : String.valueOf(end - fault.startMillis()))
          .append("</td><td class=\"n\">")
          .append(recovery == null ? "" : recovery)
          .append("</td></tr>");
    }
    rows.append("</table><p>Besides: ").append(processKills()).append(".</p>");
    return rows.toString();
  }

  /** The kills as the console's {@code kills} line counts them, exits during outages apart. */
  private String processKills() {
    if (killLog.isEmpty()) {
      return killMillis().size() + " process kills";
    }
    long exits = killLog.stream().filter(Kill::outageExit).count();
    long kills = killLog.size() - exits;
    long serving = killLog.stream().filter(kill -> !kill.outageExit() && kill.serving()).count();
    return kills
        + " process kills ("
        + serving
        + " while serving, "
        + (kills - serving)
        + " during start-up)"
        + (exits == 0
            ? ""
            : " and " + exits + (exits == 1 ? " exit during an outage" : " exits during outages"));
  }

  private String latencyTable() {
    Map<String, Long> placed = figures.sentToPlacedMillis();
    Map<String, Long> settled = figures.sentToSettledMillis();
    StringBuilder rows = new StringBuilder();
    rows.append(
        "<table><tr><th>ms</th><th>sent &rarr; placed</th><th>sent &rarr; settled</th></tr>");
    for (String figure : List.of("count", "p50", "p90", "p99", "max")) {
      rows.append("<tr><td>")
          .append(figure)
          .append("</td><td class=\"n\">")
          .append(placed.getOrDefault(figure, null) == null ? "" : placed.get(figure))
          .append("</td><td class=\"n\">")
          .append(settled.getOrDefault(figure, null) == null ? "" : settled.get(figure))
          .append("</td></tr>");
    }
    return rows.append("</table>").toString();
  }

  private String cpuTable() {
    if (!cpu.available()) {
      return "<p class=\"note\">CPU by component: not available (" + escape(cpu.note()) + ")</p>";
    }
    StringBuilder rows = new StringBuilder();
    rows.append("<p class=\"note\">From the load's start until the run went quiet, ")
        .append(cpu.settledOrders())
        .append(" orders settled")
        .append(
            cpu.machineBusyCpuSeconds() == null
                ? ""
                : "; the machine " + fmt(cpu.machineBusyCpuSeconds()) + " CPU-seconds busy")
        .append(".")
        .append(cpu.note().isEmpty() ? "" : " " + escape(cpu.note()) + ".")
        .append("</p>");
    rows.append(
        "<table><tr><th>component</th><th>processes</th><th>CPU-seconds</th>"
            + "<th>CPU-ms per settled order</th><th>share of the machine's busy CPU</th></tr>");
    for (CpuByComponent.Row row : cpu.components()) {
      rows.append("<tr><td>")
          .append(escape(row.component()))
          .append("</td><td class=\"n\">")
          .append(row.processes() == null ? "" : row.processes())
          .append("</td><td class=\"n\">")
          .append(fmt(row.cpuSeconds()))
          .append("</td><td class=\"n\">")
          .append(row.cpuMillisPerSettledOrder() == null ? "" : fmt(row.cpuMillisPerSettledOrder()))
          .append("</td><td class=\"n\">")
          .append(
              row.shareOfMachineBusy() == null
                  ? ""
                  : CpuByComponent.percent(row.shareOfMachineBusy()))
          .append("</td></tr>");
    }
    return rows.append("</table>").toString();
  }

  private static String table(String heading, Map<String, Long> counts) {
    StringBuilder rows = new StringBuilder("<table><tr><th>");
    rows.append(escape(heading)).append("</th><th>count</th></tr>");
    counts.forEach(
        (name, count) ->
            rows.append("<tr><td>")
                .append(escape(name))
                .append("</td><td class=\"n\">")
                .append(count)
                .append("</td></tr>"));
    return rows.append("</table>").toString();
  }

  private String invariantRows() {
    StringBuilder rows = new StringBuilder();
    for (Invariant invariant : invariants) {
      rows.append("<tr class=\"")
          .append(invariant.passed() ? "pass" : "fail")
          .append("\"><td>")
          .append(escape(invariant.name()))
          .append("</td><td>")
          .append(invariant.passed() ? "PASS" : "FAIL")
          .append("</td><td class=\"n\">")
          .append(invariant.checked())
          .append("</td><td class=\"n\">")
          .append(invariant.violations())
          .append("</td><td>")
          .append(escape(invariant.detail()))
          .append("</td></tr>\n");
    }
    return rows.toString();
  }

  private String floorRows() {
    StringBuilder rows = new StringBuilder();
    for (ProofFloors.Result floor : floors) {
      rows.append("<tr class=\"")
          .append(floor.met() ? "pass" : "fail")
          .append("\"><td>")
          .append(escape(floor.floor()))
          .append("</td><td>")
          .append(escape(floor.state()))
          .append("</td><td class=\"n\">")
          .append(floor.claimed() ? floor.required() : "-")
          .append("</td><td class=\"n\">")
          .append(floor.count())
          .append("</td><td>")
          .append(escape(floor.note()))
          .append("</td></tr>\n");
    }
    return rows.toString();
  }

  /** The marker's label: NETWORK_BLACKHOLE becomes "blackhole", POSTGRES_CRASH "postgres crash". */
  private static String markerLabel(FaultLog.Kind kind) {
    return shortKind(kind).replaceFirst("^network ", "");
  }

  /** NETWORK_BLACKHOLE becomes "network blackhole". */
  private static String shortKind(FaultLog.Kind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
  static double niceStep(double rough) {
    if (rough <= 0) {
      return 1;
    }
    double power = Math.pow(10, Math.floor(Math.log10(rough)));
    for (double multiple : new double[] {1, 2, 5, 10}) {
      if (multiple * power >= rough) {
        return Math.max(1, multiple * power);
      }
    }
    return 10 * power;
  }

  /**
   * The points read in a row as one line; a lone point, between two gaps, as a dot, since a line of
   * one point draws nothing.
   */
  private static String polyline(List<String> points, String colour) {
    if (points.isEmpty()) {
      return "";
    }
    if (points.size() == 1) {
      String[] xy = points.get(0).split(",");
      return "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\" fill=\"%s\"/>".formatted(xy[0], xy[1], colour);
    }
    return "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>"
        .formatted(colour, String.join(" ", points));
  }

  private static String line(double x1, double y1, double x2, double y2, String colour, int width) {
    return "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>"
        .formatted(fmt(x1), fmt(y1), fmt(x2), fmt(y2), colour, width);
  }

  private static String text(double x, double y, String anchor, int size, String content) {
    return "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" font-size=\"%d\">%s</text>"
        .formatted(fmt(x), fmt(y), anchor, size, escape(content));
  }

  private static String seconds(Long millis) {
    return millis == null ? "" : String.format(Locale.ROOT, "%.1f", millis / 1000.0);
  }

  private static String fmt(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static String fmt0(double value) {
    return String.format(Locale.ROOT, "%.0f", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
