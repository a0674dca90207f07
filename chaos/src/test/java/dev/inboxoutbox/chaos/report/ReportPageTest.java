package dev.inboxoutbox.chaos.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog.Fault;
import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import dev.inboxoutbox.chaos.fleet.Kill;
import dev.inboxoutbox.chaos.verify.Invariant;
import dev.inboxoutbox.chaos.verify.RunEvidence;
import dev.inboxoutbox.chaos.verify.RunFigures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
                true,
                "seed 1",
                "",
                timeline,
                List.of(
                    new Kill(5_000, "random", "order-consumer-1", true, false),
                    new Kill(6_000, "random", "order-consumer-2", false, false),
                    new Kill(7_000, Kill.EXIT_DURING_OUTAGE, "payment-consumer-1", true, true)),
                figures,
                List.of(Invariant.of("one order per distinct accepted key", 1, 0, "ok")))
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
  }
}
