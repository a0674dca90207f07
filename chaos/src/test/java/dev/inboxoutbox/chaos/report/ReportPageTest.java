package dev.inboxoutbox.chaos.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog.Fault;
import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import dev.inboxoutbox.chaos.fleet.Kill;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.RunEvidence;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ReportPageTest {

  @Test
  void theTimelineHasAxesWithUnitsAndANumberedMarkerPerInfrastructureFault() throws Exception {
    List<TimelinePoint> timeline = new ArrayList<>();
    for (long second = 0; second <= 60; second++) {
      timeline.add(
          new TimelinePoint(
              second * 1000,
              Math.min(9000, second * 150),
              Math.min(9000, second * 140),
              Math.min(9000, second * 120),
              second * 20,
              (int) second / 3));
    }
    List<Fault> faults =
        List.of(
            new Fault(Kind.NETWORK_LATENCY, "postgres", 8_000, Optional.of(12_000L)),
            new Fault(Kind.NETWORK_RESET, "postgres", 23_000, Optional.of(23_000L)),
            new Fault(Kind.NETWORK_BLACKHOLE, "postgres", 38_000, Optional.of(42_000L)),
            new Fault(Kind.PROCESS_KILL, "order-consumer-1", 5_000, Optional.of(5_000L)));
    RunFigures.Summary figures =
        RunFigures.summarise(
            faults,
            List.of(new RunEvidence.OrderTimes("k1", 1_000_012_500L, 1_000_013_000L)),
            Map.of("k1", 1_000_000_000L),
            1_000_000_000L,
            Map.of("order-commands", 10L),
            10,
            Map.of(),
            0,
            Map.of("total", 3L, "CONFLICT", 2L, "MALFORMED_PAYLOAD", 1L));

    String html =
        new ReportPage(
                Verdict.PASS,
                "seed 1",
                "",
                timeline,
                List.of(
                    new Kill(5_000, "random", "order-consumer-1", true, false),
                    new Kill(6_000, "random", "order-consumer-2", false, false),
                    new Kill(7_000, Kill.EXIT_DURING_OUTAGE, "payment-consumer-1", true, true)),
                figures,
                List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")),
                List.of(),
                "throughput: 84.2 orders/s settled over the 120 s window (10100 settled by 120.0 s)",
                CpuByComponent.of(
                    new LinkedHashMap<>(Map.of("Kafka brokers", new CpuByComponent.Used(4, 151.0))),
                    10_100,
                    Optional.of(200.0),
                    "the iox JVM holds the load"))
            .html();
    Files.writeString(Path.of("target", "report-page-sample.html"), html);

    assertThat(html)
        .contains("time since the load started (s)")
        .contains("count (records, orders, duplicates)")
        .contains(">#1 latency</text>")
        .contains(">#2 reset</text>")
        .contains(">#3 blackhole</text>")
        .doesNotContain(">#4 ");
    assertThat(html).contains("<td>network blackhole</td><td>postgres</td>");
    // Counted as the console counts them: an exit during an outage is not a kill.
    assertThat(html)
        .contains(
            "Besides: 2 process kills (1 while serving, 1 during start-up) and 1 exit during an"
                + " outage.");
    assertThat(html)
        .contains("<h2>Throughput and CPU</h2>")
        .contains("<p>throughput: 84.2 orders/s settled over the 120 s window")
        .contains(
            "<tr><td>Kafka brokers</td><td class=\"n\">4</td><td class=\"n\">151.0</td>"
                + "<td class=\"n\">15.0</td><td class=\"n\">75.5%</td></tr>")
        .contains("<tr><td>other processes on the machine</td><td class=\"n\"></td>");
  }

  private static final String ORDERS_COLOUR = "#2563eb";
  private static final String SETTLED_COLOUR = "#16a34a";

  /** PostgreSQL down from 8 s to 12 s: no order count was read then. */
  @Test
  void countsTheRunCouldNotReadAreAGapInTheirLinesNotZero() throws Exception {
    List<TimelinePoint> timeline = new ArrayList<>();
    for (long second = 1; second <= 20; second++) {
      boolean down = second >= 8 && second <= 12;
      timeline.add(
          new TimelinePoint(
              second * 1000,
              second * 150,
              down ? null : second * 140,
              down ? null : second * 120,
              second * 2,
              0));
    }

    String html =
        page(
            timeline,
            List.of(new Fault(Kind.POSTGRES_CRASH, "postgres", 7_500, Optional.of(12_500L))));
    Files.writeString(Path.of("target", "report-page-outage-sample.html"), html);

    for (String colour : List.of(ORDERS_COLOUR, SETTLED_COLOUR)) {
      List<List<double[]>> lines = polylines(html, colour);
      assertThat(lines).as("pieces of the line in " + colour).hasSize(2);
      // 1 s to 7 s, then 13 s to 20 s: nothing drawn for 8 s to 12 s, and nothing at a count of 0
      assertThat(lines.get(0)).hasSize(7);
      assertThat(lines.get(1)).hasSize(8);
      for (List<double[]> line : lines) {
        assertThat(line).noneMatch(point -> point[1] >= 320.0);
      }
    }
    assertThat(polylines(html, "#64748b")).as("records sent, read all along").hasSize(1);
    assertThat(html).contains("a gap in a line: the orders database could not be read");
  }

  @Test
  void aLoneCountReadBetweenTwoGapsIsADot() throws Exception {
    List<TimelinePoint> timeline = new ArrayList<>();
    for (long second = 1; second <= 10; second++) {
      boolean read = second <= 3 || second == 6 || second >= 9;
      timeline.add(
          new TimelinePoint(
              second * 1000, second * 150, read ? second * 140 : null, second * 120, 0, 0));
    }

    String html = page(timeline, List.of());

    assertThat(polylines(html, ORDERS_COLOUR)).hasSize(2);
    assertThat(html)
        .containsOnlyOnce("<circle")
        .containsPattern(
            "<circle cx=\"600\\.0\" cy=\"[0-9.]+\" r=\"[0-9.]+\" fill=\"" + ORDERS_COLOUR + "\"/>");
  }

  @Test
  void aTimelineReadAllAlongHasNoGapNote() throws Exception {
    List<TimelinePoint> timeline = new ArrayList<>();
    for (long second = 1; second <= 10; second++) {
      timeline.add(
          new TimelinePoint(second * 1000, second * 150, second * 140, second * 120, 0, 0));
    }

    String html = page(timeline, List.of());

    assertThat(polylines(html, ORDERS_COLOUR)).hasSize(1).first().asList().hasSize(10);
    assertThat(html).doesNotContain("a gap in a line").doesNotContain("<circle");
  }

  private static String page(List<TimelinePoint> timeline, List<Fault> faults) {
    RunFigures.Summary figures =
        RunFigures.summarise(faults, List.of(), Map.of(), 0, Map.of(), 0, Map.of(), 0, Map.of());
    return new ReportPage(
            Verdict.PASS,
            "seed 1",
            "",
            timeline,
            List.of(),
            figures,
            List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")),
            List.of(),
            "",
            CpuByComponent.unavailable("no /proc"))
        .html();
  }

  /** The points of each polyline drawn in {@code colour}, in the page's order. */
  private static List<List<double[]>> polylines(String html, String colour) {
    Matcher polyline =
        Pattern.compile("<polyline[^>]*stroke=\"" + colour + "\"[^>]*points=\"([^\"]*)\"")
            .matcher(html);
    List<List<double[]>> lines = new ArrayList<>();
    while (polyline.find()) {
      List<double[]> points = new ArrayList<>();
      for (String point : polyline.group(1).trim().split("\\s+")) {
        String[] xy = point.split(",");
        points.add(new double[] {Double.parseDouble(xy[0]), Double.parseDouble(xy[1])});
      }
      lines.add(points);
    }
    return lines;
  }
}
