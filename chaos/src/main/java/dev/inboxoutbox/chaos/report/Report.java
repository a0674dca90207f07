package dev.inboxoutbox.chaos.report;

import dev.inboxoutbox.chaos.fault.FaultLog;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.fleet.Kill;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.FaultRecovery;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.devstack.MachineLoad;
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
public final class Report {

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private final ChaosOptions options;
  private final Map<String, Object> sent;
  private final Map<String, Integer> kills;
  private final List<Invariant> invariants;
  private final List<TimelinePoint> timeline;
  private final List<Kill> killLog;
  private final Map<String, Object> provider;
  private final Duration took;
  private final Optional<MachineLoad> machine;
  private final NetworkChaos.Settings network;
  private final RunFigures.Summary figures;
  private List<FaultLog.Fault> faults = List.of();
  private List<ProofFloors.Result> floors = List.of();
  private CpuByComponent cpu = CpuByComponent.unavailable("not measured");
  private Optional<Throughput> throughput = Optional.empty();

  public Report(
      ChaosOptions options,
      Map<String, Object> sent,
      Map<String, Integer> kills,
      List<Invariant> invariants,
      List<TimelinePoint> timeline,
      List<Kill> killLog,
      Map<String, Object> provider,
      Duration took,
      Optional<MachineLoad> machine,
      NetworkChaos.Settings network,
      RunFigures.Summary figures) {
    this.options = options;
    this.sent = sent;
    this.kills = kills;
    this.invariants = invariants;
    this.timeline = List.copyOf(timeline);
    this.killLog = List.copyOf(killLog);
    this.provider = provider;
    this.took = took;
    this.machine = machine;
    this.network = network;
    this.figures = figures;
  }

  /** The run's faults, on the load's time base. */
  public void faults(List<FaultLog.Fault> faults) {
    this.faults = List.copyOf(faults);
  }

  /** The proof floors after the run: a claimed floor missed makes the run inconclusive. */
  public void floors(List<ProofFloors.Result> floors) {
    this.floors = List.copyOf(floors);
  }

  /** The CPU each component of the run used until it went quiet. */
  public void cpu(CpuByComponent cpu) {
    this.cpu = cpu;
  }

  /** Orders settled per second over the load; empty when no sample read the orders database. */
  public void throughput(Optional<Throughput> throughput) {
    this.throughput = throughput;
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

  public CpuByComponent cpu() {
    return cpu;
  }

  public Optional<Throughput> throughput() {
    return throughput;
  }

  /** The names of the invariants the run violated, in the verifier's order. */
  public List<String> violated() {
    return invariants.stream()
        .filter(invariant -> !invariant.passed())
        .map(Invariant::name)
        .toList();
  }

  public Verdict verdict() {
    return Verdict.of(invariants, floors);
  }

  public void print(PrintStream out) {
    out.printf(
        "%nseed %d, %d s, sent %s, kills %s%n", options.seed(), took.toSeconds(), sent, kills);
    machine.ifPresent(load -> out.println(load.describe()));
    out.printf("faults %s%n", faultCounts());
    printFigures(out);
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
    printFloors(out);
    out.println("VERDICT: " + verdict().description());
  }

  private void printFloors(PrintStream out) {
    if (floors.isEmpty()) {
      return;
    }
    out.printf("%-68s %-11s %10s %10s  %s%n", "proof floor", "result", "required", "count", "note");
    for (ProofFloors.Result floor : floors) {
      out.printf(
          "%-68s %-11s %10s %10d  %s%n",
          floor.floor(),
          floor.state(),
          floor.claimed() ? floor.required() : "-",
          floor.count(),
          floor.note());
    }
  }

  private void printFigures(PrintStream out) {
    out.printf(
        "%-20s %-20s %9s %9s %22s%n",
        "fault", "target", "start s", "end s", "orders moving after ms");
    for (FaultRecovery fault : figures.faults()) {
      if (fault.infrastructure()) {
        out.printf(
            "%-20s %-20s %9s %9s %22s%n",
            fault.kind(),
            fault.target(),
            seconds(fault.startMillis()),
            seconds(fault.endMillis()),
            fault.ordersMovingAgainAfterMillis() == null
                ? "-"
                : fault.ordersMovingAgainAfterMillis());
      }
    }
    out.println("duplicates absorbed by source: " + figures.duplicateSources());
    out.println("dead letters by reason: " + figures.deadLettersByReason());
    out.println("order sent -> placed, ms: " + figures.sentToPlacedMillis());
    out.println("order sent -> settled, ms: " + figures.sentToSettledMillis());
    out.println(
        throughput
            .map(Throughput::line)
            .orElse("throughput: unknown (no sample within the load read the orders database)"));
    cpu.lines().forEach(out::println);
  }

  private static String seconds(Long millis) {
    return millis == null ? "-" : String.format(java.util.Locale.ROOT, "%.1f", millis / 1000.0);
  }

  private Map<String, Object> document() {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("verdict", verdict().name());
    document.put("seed", options.seed());
    document.put("tookMillis", took.toMillis());
    Map<String, Object> chosen = new LinkedHashMap<>();
    chosen.put("orders", options.orders());
    chosen.put("windowMillis", options.timeBoxed() ? options.window().toMillis() : null);
    chosen.put("ratePerSecond", options.ratePerSecond());
    chosen.put("orderInstances", options.orderInstances());
    chosen.put("paymentInstances", options.paymentInstances());
    chosen.put(
        "dedup",
        options.negativeControl() != NegativeControl.NO_DEDUP
            && options.negativeControl() != NegativeControl.INBOX_OFF);
    chosen.put("negativeControl", options.negativeControl().name());
    chosen.put("crashPointProbability", options.crashPointProbability());
    chosen.put("retryShare", options.retryShare());
    chosen.put("conflictShare", options.conflictShare());
    chosen.put("malformedShare", options.malformedShare());
    chosen.put("webhookDuplicateShare", options.webhookDuplicateShare());
    chosen.put("networkFaults", network.faults().stream().map(Enum::name).sorted().toList());
    chosen.put("networkFaultFirstAfterMillis", network.firstAfter().toMillis());
    chosen.put("networkFaultEveryMillis", network.every().toMillis());
    chosen.put("networkLatencyMillis", network.latency().toMillis());
    chosen.put("networkFaultDurationMillis", network.duration().toMillis());
    document.put("options", chosen);
    document.put("timeBase", "milliseconds since the load started (every *Millis and atMillis)");
    document.put("sent", sent);
    document.put("kills", kills);
    document.put("provider", provider);
    document.put("invariants", invariants);
    document.put("proofFloors", floors);
    document.put("faults", figures.faults());
    document.put("duplicatesAbsorbedBySource", figures.duplicateSources());
    document.put("duplicatesAbsorbedByOperation", figures.duplicatesByOperation());
    document.put("deadLettersByReason", figures.deadLettersByReason());
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("sentToPlaced", figures.sentToPlacedMillis());
    latency.put("sentToSettled", figures.sentToSettledMillis());
    document.put("endToEndLatencyMillis", latency);
    document.put("throughput", throughput.orElse(null));
    document.put("cpuByComponent", cpu);
    document.put("timeline", timeline);
    document.put("killLog", killLog);
    document.put("faultCounts", faultCounts());
    machine.ifPresent(load -> document.put("machine", load));
    return document;
  }

  public Path writeJson(Path directory) throws IOException {
    Path file = directory.resolve("report.json");
    JSON.writeValue(file.toFile(), document());
    return file;
  }

  public Path writeHtml(Path directory) throws IOException {
    Path file = directory.resolve("report.html");
    Files.writeString(
        file,
        new ReportPage(
                verdict(),
                "seed "
                    + options.seed()
                    + " · took "
                    + took.toSeconds()
                    + " s · sent: "
                    + readable(sent)
                    + " · kills: "
                    + readable(kills),
                machine.map(MachineLoad::describe).orElse(""),
                timeline,
                killLog,
                figures,
                invariants,
                floors,
                throughput.map(Throughput::line).orElse(""),
                cpu)
            .html());
    return file;
  }

  /** "records 11324, distinctOrders 10000" instead of a map's toString(). */
  private static String readable(Map<String, ?> counts) {
    StringBuilder text = new StringBuilder();
    counts.forEach(
        (name, value) ->
            text.append(text.isEmpty() ? "" : ", ").append(name).append(' ').append(value));
    return text.toString();
  }
}
