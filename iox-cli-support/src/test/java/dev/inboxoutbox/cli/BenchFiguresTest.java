package dev.inboxoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.cli.BenchFigures.Better;
import dev.inboxoutbox.cli.BenchFigures.Target;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class BenchFiguresTest {

  private final BenchFigures figures = new BenchFigures();

  @Test
  void aThroughputRatioIsTheMedianOverTheBaselinesMedian() {
    BenchFigures.Figure baseline =
        figures.add(
            "consumer",
            "no inbox",
            "msg/s",
            Better.HIGHER,
            List.of(900.0, 1000.0, 1100.0),
            Optional.empty(),
            Optional.empty());
    BenchFigures.Figure inbox =
        figures.add(
            "consumer",
            "inbox",
            "msg/s",
            Better.HIGHER,
            List.of(850.0, 700.0, 800.0),
            Optional.of(baseline),
            Optional.of(Target.ratioAtLeast(0.8)));

    assertThat(inbox.median()).isEqualTo(800.0);
    assertThat(inbox.ratio().getAsDouble()).isEqualTo(0.8);
    assertThat(inbox.met()).contains(true);
  }

  @Test
  void aCostRatioIsTheBaselineOverTheMedianSoLargerIsStillBetter() {
    BenchFigures.Figure baseline =
        figures.add(
            "sql",
            "plain",
            "µs/key",
            Better.LOWER,
            List.of(5.0),
            Optional.empty(),
            Optional.empty());
    BenchFigures.Figure inbox =
        figures.add(
            "sql",
            "claim",
            "µs/key",
            Better.LOWER,
            List.of(40.0, 50.0),
            Optional.of(baseline),
            Optional.of(Target.atMost(30)));

    assertThat(inbox.median()).isEqualTo(45.0);
    assertThat(inbox.ratio().getAsDouble())
        .isCloseTo(5.0 / 45.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(inbox.met()).contains(false);
  }

  @Test
  void theTableMarksAMissedTargetAndTheJsonCarriesSamplesAndVerdict() throws Exception {
    figures.add(
        "relay",
        "p99",
        "ms",
        Better.LOWER,
        List.of(120.0, 90.0, 180.0),
        Optional.empty(),
        Optional.of(Target.atMost(100)));
    figures.note("machine: 2 cores");

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    figures.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table).contains("p99").contains("120 ms").contains("90-180").contains("NO");
    assertThat(table).contains("machine: 2 cores");

    JsonNode json = JsonMapper.builder().build().readTree(figures.toJson());
    JsonNode p99 = json.get("figures").get(0);
    assertThat(p99.get("samples").size()).isEqualTo(3);
    assertThat(p99.get("median").asDouble()).isEqualTo(120.0);
    assertThat(p99.get("met").asBoolean()).isFalse();
    assertThat(json.get("notes").get(0).asString()).isEqualTo("machine: 2 cores");
  }

  @Test
  void aDetailIsInTheJsonButNotInTheCommonTable() throws Exception {
    figures.add(
        "consumer",
        "1p/1t inbox",
        "msg/s",
        Better.HIGHER,
        List.of(1000.0),
        Optional.empty(),
        Optional.empty());
    figures.addDetail("consumer", "1p/1t inbox: claim", "% of time", Better.LOWER, List.of(12.5));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    figures.printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table).contains("1p/1t inbox").doesNotContain("1p/1t inbox: claim");
    assertThat(table).contains("1 detail figure(s)");

    JsonNode json = JsonMapper.builder().build().readTree(figures.toJson());
    assertThat(json.get("figures").size()).isEqualTo(2);
    assertThat(json.get("figures").get(0).has("detail")).isFalse();
    JsonNode claim = json.get("figures").get(1);
    assertThat(claim.get("name").asString()).isEqualTo("1p/1t inbox: claim");
    assertThat(claim.get("detail").asBoolean()).isTrue();
    assertThat(claim.get("median").asDouble()).isEqualTo(12.5);
    assertThat(claim.has("target")).isFalse();
  }
}
