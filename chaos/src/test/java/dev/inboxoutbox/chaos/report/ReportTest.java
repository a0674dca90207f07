package dev.inboxoutbox.chaos.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.inboxoutbox.chaos.fault.FaultLog.Fault;
import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.fleet.Kill;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ReportTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path directory;

  /**
   * Scripts read report.json by these names; the records behind it must not rename them. A count
   * the run could not read (PostgreSQL down) is null, neither -1 nor 0.
   */
  @Test
  void theJsonKeepsTheFieldNamesAndOrderOfFaultsKillsAndTimelinePoints() throws Exception {
    RunFigures.Summary figures =
        RunFigures.summarise(
            List.of(
                new Fault(Kind.NETWORK_BLACKHOLE, "postgres", 8_000, Optional.of(12_000L)),
                new Fault(Kind.POSTGRES_CRASH, "postgres", 40_000, Optional.empty())),
            List.of(),
            Map.of(),
            0,
            Map.of(),
            0,
            Map.of(),
            0,
            Map.of());
    Report report =
        new Report(
            options(),
            Map.of("records", 10L),
            Map.of("total", 1),
            List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")),
            List.of(new TimelinePoint(1_000, 150, 140L, null, 20, 1)),
            List.of(new Kill(5_250, "exit-during-outage", "order-consumer-1", false, true)),
            Map.of(),
            Duration.ofSeconds(60),
            Optional.empty(),
            NetworkChaos.Settings.defaults(),
            figures);

    JsonNode json = JSON.readTree(Files.readString(report.writeJson(directory)));

    assertThat(rows(json, "faults"))
        .satisfiesExactly(
            fault ->
                assertThat(fault)
                    .containsExactly(
                        entry("kind", "NETWORK_BLACKHOLE"),
                        entry("target", "postgres"),
                        entry("startMillis", 8_000),
                        entry("endMillis", 12_000),
                        entry("ordersMovingAgainAfterMillis", null)),
            fault ->
                assertThat(fault)
                    .containsExactly(
                        entry("kind", "POSTGRES_CRASH"),
                        entry("target", "postgres"),
                        entry("startMillis", 40_000),
                        entry("endMillis", null),
                        entry("ordersMovingAgainAfterMillis", null)));
    assertThat(rows(json, "killLog"))
        .singleElement()
        .satisfies(
            kill ->
                assertThat(kill)
                    .containsExactly(
                        entry("atMillis", 5_250),
                        entry("kind", "exit-during-outage"),
                        entry("process", "order-consumer-1"),
                        entry("serving", false),
                        entry("duringInfrastructureFault", true)));
    assertThat(rows(json, "timeline"))
        .singleElement()
        .satisfies(
            point ->
                assertThat(point)
                    .containsExactly(
                        entry("atMillis", 1_000),
                        entry("sent", 150),
                        entry("orders", 140),
                        entry("settled", null),
                        entry("duplicatesAbsorbed", 20),
                        entry("kills", 1)));
  }

  /**
   * Every invariant held and a claimed floor missed: each output says INCONCLUSIVE, with counts.
   */
  @Test
  void aMissedFloorIsInconclusiveInTheConsoleTheJsonAndThePage() throws Exception {
    Report report =
        new Report(
            options(),
            Map.of("records", 10L),
            Map.of("total", 1),
            List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")),
            List.of(),
            List.of(),
            Map.of(),
            Duration.ofSeconds(60),
            Optional.empty(),
            NetworkChaos.Settings.defaults(),
            RunFigures.summarise(
                List.of(), List.of(), Map.of(), 0, Map.of(), 0, Map.of(), 0, Map.of()));
    report.floors(
        ProofFloors.defaults()
            .without(ProofFloors.Floor.NETWORK_FAULTS, "no network faults")
            .evaluate(Map.of(ProofFloors.Floor.POSTGRES_CRASHES, 1L)));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    report.print(new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(report.verdict()).isEqualTo(Verdict.INCONCLUSIVE);
    assertThat(console.toString(StandardCharsets.UTF_8))
        .containsPattern("PostgreSQL crashes\\s+MISSED\\s+2\\s+1")
        .containsPattern("network faults\\s+not claimed\\s+-\\s+0\\s+no network faults")
        .contains("VERDICT: INCONCLUSIVE");
    JsonNode json = JSON.readTree(Files.readString(report.writeJson(directory)));
    assertThat(json.get("verdict").asString()).isEqualTo("INCONCLUSIVE");
    assertThat(rows(json, "proofFloors"))
        .filteredOn(floor -> floor.get("floor").equals("PostgreSQL crashes"))
        .singleElement()
        .satisfies(
            floor ->
                assertThat(floor)
                    .containsExactly(
                        entry("floor", "PostgreSQL crashes"),
                        entry("required", 2),
                        entry("count", 1),
                        entry("note", "")));
    assertThat(Files.readString(report.writeHtml(directory)))
        .contains("INCONCLUSIVE: every invariant held, a claimed floor was missed")
        .contains("<td>PostgreSQL crashes</td><td>MISSED</td>");
  }

  /**
   * After the latency: the throughput over the window and the CPU table, in the console and, by
   * these names, in report.json.
   */
  @Test
  void theThroughputAndTheCpuByComponentFollowTheLatency() throws Exception {
    Report report =
        new Report(
            options(),
            Map.of("records", 10L),
            Map.of("total", 0),
            List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")),
            List.of(),
            List.of(),
            Map.of(),
            Duration.ofSeconds(60),
            Optional.empty(),
            NetworkChaos.Settings.defaults(),
            RunFigures.summarise(
                List.of(), List.of(), Map.of(), 0, Map.of(), 0, Map.of(), 0, Map.of()));
    report.throughput(
        Throughput.over(
            List.of(new TimelinePoint(60_000, 5_000, 4_900L, 4_800L, 0, 0)), 60_000, true));
    java.util.LinkedHashMap<String, CpuByComponent.Used> used = new java.util.LinkedHashMap<>();
    used.put("Kafka brokers", new CpuByComponent.Used(3, 72.0));
    used.put("iox JVM", new CpuByComponent.Used(1, 24.0));
    report.cpu(CpuByComponent.of(used, 4_800, Optional.of(120.0), "the iox JVM holds the load"));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    report.print(new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(console.toString(StandardCharsets.UTF_8))
        .containsPattern(
            "order sent -> settled, ms: .*\\R"
                + "throughput: 80.0 orders/s settled over the 60 s window \\(4800 settled by 60.0"
                + " s\\)\\R"
                + "CPU by component, from the load's start until quiet \\(4800 orders settled; the"
                + " machine 120.0 CPU-seconds busy\\):\\R"
                + "component +processes +CPU-s +CPU-ms/order +share of busy\\R"
                + "Kafka brokers +3 +72.0 +15.0 +60.0%\\R"
                + "iox JVM +1 +24.0 +5.0 +20.0%\\R"
                + "all the run's processes +4 +96.0 +20.0 +80.0%\\R"
                + "other processes on the machine +- +24.0 +- +20.0%\\R"
                + "the iox JVM holds the load\\R");
    JsonNode json = JSON.readTree(Files.readString(report.writeJson(directory)));
    assertThat(JSON.convertValue(json.get("throughput"), Map.class))
        .containsExactly(
            entry("window", true),
            entry("loadMillis", 60_000),
            entry("settled", 4_800),
            entry("atMillis", 60_000),
            entry("settledPerSecond", 80.0));
    JsonNode cpu = json.get("cpuByComponent");
    assertThat(cpu.get("available").asBoolean()).isTrue();
    assertThat(cpu.get("settledOrders").asLong()).isEqualTo(4_800);
    assertThat(cpu.get("machineBusyCpuSeconds").asDouble()).isEqualTo(120.0);
    assertThat(cpu.get("note").asString()).isEqualTo("the iox JVM holds the load");
    assertThat(rows(cpu, "components"))
        .first()
        .satisfies(
            row ->
                assertThat(row)
                    .containsExactly(
                        entry("component", "Kafka brokers"),
                        entry("processes", 3),
                        entry("cpuSeconds", 72.0),
                        entry("cpuMillisPerSettledOrder", 15.0),
                        entry("shareOfMachineBusy", 0.6)));
  }

  /** Where there is no /proc the table says so instead of showing zeros. */
  @Test
  void withoutProcTheCpuTableSaysItIsNotAvailable() {
    Report report =
        new Report(
            options(),
            Map.of("records", 10L),
            Map.of("total", 0),
            List.of(),
            List.of(),
            List.of(),
            Map.of(),
            Duration.ofSeconds(60),
            Optional.empty(),
            NetworkChaos.Settings.defaults(),
            RunFigures.summarise(
                List.of(), List.of(), Map.of(), 0, Map.of(), 0, Map.of(), 0, Map.of()));
    report.cpu(CpuByComponent.unavailable("no /proc/<pid>/stat to read: the table needs Linux"));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    report.print(new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(console.toString(StandardCharsets.UTF_8))
        .contains(
            "CPU by component: not available (no /proc/<pid>/stat to read: the table needs"
                + " Linux)")
        .contains("throughput: unknown (no sample within the load read the orders database)");
  }

  private static List<Map<String, Object>> rows(JsonNode document, String field) {
    return JSON.convertValue(
        document.get(field), new TypeReference<List<Map<String, Object>>>() {});
  }

  private static ChaosOptions options() {
    return new ChaosOptions(
        1,
        100,
        Duration.ofSeconds(120),
        50,
        2,
        2,
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        1,
        Duration.ofSeconds(1),
        0.0,
        NegativeControl.NONE,
        0.1,
        0.02,
        0.01,
        0.05,
        0.3,
        Duration.ofSeconds(60),
        Path.of("."),
        Path.of("iox-reports"));
  }
}
