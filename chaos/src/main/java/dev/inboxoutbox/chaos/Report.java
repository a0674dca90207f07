package dev.inboxoutbox.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The verdict of a chaos run: a console table, a JSON file and an HTML page with a timeline. */
final class Report {

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private final ChaosOptions options;
  private final Map<String, Object> sent;
  private final Map<String, Integer> kills;
  private final List<Invariant> invariants;
  private final List<Map<String, Object>> timeline;
  private final List<Map<String, Object>> killLog;
  private final Map<String, Object> provider;
  private final Duration took;
  private final Optional<MachineLoad> machine;
  private List<FaultLog.Fault> faults = List.of();

  Report(
      ChaosOptions options,
      Map<String, Object> sent,
      Map<String, Integer> kills,
      List<Invariant> invariants,
      List<Map<String, Object>> timeline,
      List<Map<String, Object>> killLog,
      Map<String, Object> provider,
      Duration took,
      Optional<MachineLoad> machine) {
    this.options = options;
    this.sent = sent;
    this.kills = kills;
    this.invariants = invariants;
    this.timeline = List.copyOf(timeline);
    this.killLog = List.copyOf(killLog);
    this.provider = provider;
    this.took = took;
    this.machine = machine;
  }

  /** The run's faults, on the load's time base. */
  void faults(List<FaultLog.Fault> faults) {
    this.faults = List.copyOf(faults);
  }

  /** How many faults of each kind, in the order of the kinds. */
  private Map<String, Long> faultCounts() {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (FaultLog.Kind kind : FaultLog.Kind.values()) {
      long count = faults.stream().filter(f -> f.kind() == kind).count();
      if (count > 0) {
        counts.put(FaultOptions.nameOf(kind), count);
      }
    }
    return counts;
  }

  private List<Map<String, Object>> faultList() {
    return faults.stream()
        .map(
            fault -> {
              Map<String, Object> entry = new LinkedHashMap<>();
              entry.put("kind", FaultOptions.nameOf(fault.kind()));
              entry.put("target", fault.target());
              entry.put("startMillis", fault.startMillis());
              entry.put("endMillis", fault.endMillis().orElse(null));
              return entry;
            })
        .toList();
  }

  boolean passed() {
    return invariants.stream().allMatch(Invariant::passed);
  }

  void print(PrintStream out) {
    out.printf(
        "%nseed %d, %d s, sent %s, kills %s%n", options.seed(), took.toSeconds(), sent, kills);
    machine.ifPresent(load -> out.println(load.describe()));
    out.printf("faults %s%n", faultCounts());
    out.printf(
        "%-68s %-6s %10s %10s  %s%n", "invariant", "result", "checked", "violations", "detail");
    for (Invariant invariant : invariants) {
      out.printf(
          "%-68s %-6s %10d %10d  %s%n",
          invariant.name(),
          invariant.passed() ? "PASS" : "FAIL",
          invariant.checked(),
          invariant.violations(),
          invariant.detail());
    }
    out.println(passed() ? "VERDICT: PASS (exactly-once effects held)" : "VERDICT: FAIL");
  }

  private Map<String, Object> document() {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("verdict", passed() ? "PASS" : "FAIL");
    document.put("seed", options.seed());
    document.put("tookSeconds", took.toSeconds());
    document.put(
        "options",
        Map.of(
            "orders",
            options.orders(),
            "ratePerSecond",
            options.ratePerSecond(),
            "orderInstances",
            options.orderInstances(),
            "paymentInstances",
            options.paymentInstances(),
            "dedup",
            options.dedup(),
            "crashPointProbability",
            options.crashPointProbability(),
            "retryShare",
            options.retryShare(),
            "conflictShare",
            options.conflictShare(),
            "malformedShare",
            options.malformedShare(),
            "webhookDuplicateShare",
            options.webhookDuplicateShare()));
    document.put("sent", sent);
    document.put("kills", kills);
    document.put("provider", provider);
    document.put("invariants", invariants);
    document.put("timeline", timeline);
    document.put("killLog", killLog);
    document.put("faultCounts", faultCounts());
    document.put("faults", faultList());
    machine.ifPresent(load -> document.put("machine", load));
    return document;
  }

  Path writeJson(Path directory) throws IOException {
    Path file = directory.resolve("report.json");
    JSON.writeValue(file.toFile(), document());
    return file;
  }

  Path writeHtml(Path directory) throws IOException {
    Path file = directory.resolve("report.html");
    StringBuilder rows = new StringBuilder();
    for (Invariant invariant : invariants) {
      rows.append("<tr class=\"")
          .append(invariant.passed() ? "pass" : "fail")
          .append("\"><td>")
          .append(escape(invariant.name()))
          .append("</td><td>")
          .append(invariant.passed() ? "PASS" : "FAIL")
          .append("</td><td>")
          .append(invariant.checked())
          .append("</td><td>")
          .append(invariant.violations())
          .append("</td><td>")
          .append(escape(invariant.detail()))
          .append("</td></tr>\n");
    }
    String html =
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>iox chaos report</title>
        <style>
          body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
          table { border-collapse: collapse; } td, th { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: left; }
          tr.pass td:nth-child(2) { color: #17803d; font-weight: bold; } tr.fail td:nth-child(2) { color: #c0262d; font-weight: bold; }
          .verdict { font-size: 1.6em; font-weight: bold; } .legend span { margin-right: 1.5em; }
        </style></head><body>
        <h1>iox chaos report</h1>
        <p class="verdict">%s</p>
        <p>seed %d &middot; %d s &middot; sent %s &middot; kills %s</p>
        <p>%s</p>
        <h2>Timeline</h2>
        <p class="legend"><span style="color:#2563eb">&#9632; orders applied</span><span style="color:#16a34a">&#9632; orders settled (paid or payment failed)</span><span style="color:#9333ea">&#9632; duplicates absorbed</span><span style="color:#64748b">&#9632; records sent</span><span style="color:#dc2626">| kill</span></p>
        %s
        <h2>Invariants</h2>
        <table><tr><th>invariant</th><th>result</th><th>checked</th><th>violations</th><th>detail</th></tr>
        %s</table>
        <h2>Raw data</h2><p>See report.json next to this file.</p>
        </body></html>
        """
            .formatted(
                passed() ? "PASS: exactly-once effects held" : "FAIL: see the violations below",
                options.seed(),
                took.toSeconds(),
                escape(sent.toString()),
                escape(kills.toString()),
                machine.map(load -> escape(load.describe())).orElse(""),
                chart(),
                rows);
    Files.writeString(file, html);
    return file;
  }

  /** An inline SVG: three series over time and a tick per kill; no script, opens anywhere. */
  private String chart() {
    if (timeline.isEmpty()) {
      return "<p>no samples</p>";
    }
    double width = 900;
    double height = 300;
    double maxT = Math.max(1, number(timeline.get(timeline.size() - 1), "t"));
    double maxY = 1;
    for (Map<String, Object> point : timeline) {
      maxY =
          Math.max(
              maxY,
              Math.max(
                  number(point, "sent"),
                  Math.max(number(point, "orders"), number(point, "duplicatesAbsorbed"))));
    }
    StringBuilder svg = new StringBuilder();
    svg.append("<svg width=\"")
        .append((int) width + 60)
        .append("\" height=\"")
        .append((int) height + 40)
        .append("\" xmlns=\"http://www.w3.org/2000/svg\"><g transform=\"translate(50,10)\">");
    svg.append("<rect width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" fill=\"#fafafa\" stroke=\"#ccc\"/>");
    int previousKills = 0;
    for (Map<String, Object> point : timeline) {
      int killsSoFar = (int) number(point, "kills");
      if (killsSoFar > previousKills) {
        double x = number(point, "t") / maxT * width;
        svg.append("<line x1=\"")
            .append(fmt(x))
            .append("\" x2=\"")
            .append(fmt(x))
            .append("\" y1=\"0\" y2=\"")
            .append(height)
            .append("\" stroke=\"#dc2626\" stroke-opacity=\"0.5\"/>");
        previousKills = killsSoFar;
      }
    }
    svg.append(series("sent", "#64748b", maxT, maxY, width, height));
    svg.append(series("orders", "#2563eb", maxT, maxY, width, height));
    svg.append(series("settled", "#16a34a", maxT, maxY, width, height));
    svg.append(series("duplicatesAbsorbed", "#9333ea", maxT, maxY, width, height));
    svg.append("<text x=\"-45\" y=\"10\" font-size=\"11\">").append((long) maxY).append("</text>");
    svg.append("<text x=\"")
        .append(width - 40)
        .append("\" y=\"")
        .append(height + 25)
        .append("\" font-size=\"11\">")
        .append(fmt(maxT))
        .append(" s</text>");
    svg.append("</g></svg>");
    return svg.toString();
  }

  private String series(
      String field, String colour, double maxT, double maxY, double width, double height) {
    StringBuilder points = new StringBuilder();
    for (Map<String, Object> point : timeline) {
      double value = Math.max(0, number(point, field));
      points
          .append(fmt(number(point, "t") / maxT * width))
          .append(',')
          .append(fmt(height - value / maxY * height))
          .append(' ');
    }
    return "<polyline fill=\"none\" stroke=\""
        + colour
        + "\" stroke-width=\"2\" points=\""
        + points
        + "\"/>";
  }

  private static double number(Map<String, Object> point, String field) {
    Object value = point.get(field);
    return value instanceof Number n ? n.doubleValue() : 0;
  }

  private static String fmt(double value) {
    return String.format(java.util.Locale.ROOT, "%.1f", value);
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
