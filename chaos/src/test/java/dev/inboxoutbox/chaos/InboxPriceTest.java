package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.cli.BenchFigures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InboxPriceTest {

  private static final InboxPrice.Sample PASSED_AT_100 = sample(Verdict.PASS, 100.0, 15.0);

  @Test
  void eachPairRunsOneLoadInBothArmsTheFirstArmAlternatingAfterAWarmUp() throws Exception {
    ChaosOptions base = ChaosRuns.options(NegativeControl.NONE, 40, Duration.ofMinutes(1));
    List<ChaosOptions> ran = new ArrayList<>();

    InboxPrice.Result result =
        InboxPrice.measure(
            base,
            3,
            options -> {
              ran.add(options);
              return PASSED_AT_100;
            },
            () -> false,
            quiet());

    assertThat(ran)
        .extracting(ChaosOptions::negativeControl)
        .containsExactly(
            NegativeControl.NONE,
            NegativeControl.NONE,
            NegativeControl.INBOX_OFF,
            NegativeControl.INBOX_OFF,
            NegativeControl.NONE,
            NegativeControl.NONE,
            NegativeControl.INBOX_OFF);
    assertThat(ran)
        .extracting(ChaosOptions::seed)
        .containsExactly(39L, 40L, 40L, 41L, 41L, 42L, 42L);
    assertThat(ran)
        .allSatisfy(options -> assertThat(options.window()).isEqualTo(base.window()))
        .allSatisfy(options -> assertThat(options.retryShare()).isEqualTo(base.retryShare()));
    assertThat(result.withInboxes()).hasSize(3);
    assertThat(result.inboxesOff()).hasSize(3);
  }

  /** Half an hour of runs is not thrown away for one that failed to start. */
  @Test
  void aFailedRunEndsTheComparisonWithThePairsBeforeItAndFailsIt() throws Exception {
    ChaosOptions base = ChaosRuns.options(NegativeControl.NONE, 40, Duration.ofMinutes(1));
    int[] runs = {0};

    InboxPrice.Result result =
        InboxPrice.measure(
            base,
            3,
            options -> {
              // The warm-up, pair 1 (both runs), then pair 2's first run; its second fails.
              if (++runs[0] == 5) {
                throw new IllegalStateException("payment-consumer-2 did not start");
              }
              return PASSED_AT_100;
            },
            () -> false,
            quiet());

    assertThat(result.withInboxes()).hasSize(1);
    assertThat(result.inboxesOff()).as("pair 2's run without a partner is dropped").hasSize(1);
    assertThat(result.incomplete())
        .hasValueSatisfying(
            reason ->
                assertThat(reason)
                    .contains("pair 2 of 3")
                    .contains("payment-consumer-2 did not start"));
    assertThat(result.exitCode()).isEqualTo(Verdict.FAIL.exitCode());
    ByteArrayOutputStream table = new ByteArrayOutputStream();
    result.figures().printTable(new PrintStream(table, true, StandardCharsets.UTF_8));
    assertThat(table.toString(StandardCharsets.UTF_8))
        .contains("INCOMPLETE: pair 2 of 3")
        .contains("orders/s settled, with the inboxes");
  }

  @Test
  void aStopEndsTheComparisonWithTheRunsException() throws Exception {
    ChaosOptions base = ChaosRuns.options(NegativeControl.NONE, 40, Duration.ofMinutes(1));
    InterruptedException stop = new InterruptedException("stopped");

    assertThatThrownBy(
            () ->
                InboxPrice.measure(
                    base,
                    3,
                    options -> {
                      throw stop;
                    },
                    () -> true,
                    quiet()))
        .isSameAs(stop);
  }

  @Test
  void theRatioIsTheMedianWithTheInboxesOverTheMedianWithout() {
    InboxPrice.Result result =
        new InboxPrice.Result(
            List.of(
                sample(Verdict.PASS, 90.0, 16.0),
                sample(Verdict.PASS, 120.0, 14.0),
                sample(Verdict.PASS, 100.0, 15.0)),
            List.of(
                sample(Verdict.FAIL, 110.0, 14.0),
                sample(Verdict.FAIL, 125.0, 12.0),
                sample(Verdict.FAIL, 80.0, 13.0)));

    List<BenchFigures.Figure> figures = result.figures().figures();

    BenchFigures.Figure rate = named(figures, "orders/s settled, with the inboxes");
    assertThat(rate.median()).isEqualTo(100.0);
    assertThat(rate.ratio().getAsDouble()).isEqualTo(100.0 / 110.0);
    assertThat(rate.met()).contains(true);
    BenchFigures.Figure cpu = named(figures, "CPU per settled order, with the inboxes");
    assertThat(cpu.ratio().getAsDouble()).as("lower is better").isEqualTo(13.0 / 15.0);
    assertThat(result.exitCode()).as("the baseline is not held to the invariants").isZero();
  }

  @Test
  void aRatioUnderTheTargetIsNotMetButTheRunsStillPass() {
    InboxPrice.Result result =
        new InboxPrice.Result(
            List.of(sample(Verdict.PASS, 80.0, 16.0)), List.of(sample(Verdict.FAIL, 100.0, 14.0)));

    assertThat(named(result.figures().figures(), "orders/s settled, with the inboxes").met())
        .contains(false);
    assertThat(result.exitCode()).isZero();
  }

  @Test
  void aViolationWithTheInboxesOrARunWithoutAFigureFailsTheComparison() {
    assertThat(
            new InboxPrice.Result(
                    List.of(PASSED_AT_100, sample(Verdict.FAIL, 100.0, 15.0)),
                    List.of(PASSED_AT_100, PASSED_AT_100))
                .exitCode())
        .isEqualTo(Verdict.FAIL.exitCode());
    InboxPrice.Sample unmeasured =
        new InboxPrice.Sample(Verdict.FAIL, Optional.empty(), Optional.empty(), List.of());
    InboxPrice.Result missing = new InboxPrice.Result(List.of(PASSED_AT_100), List.of(unmeasured));
    assertThat(missing.exitCode()).isEqualTo(Verdict.FAIL.exitCode());
    assertThat(missing.figures().figures())
        .extracting(BenchFigures.Figure::name)
        .as("no baseline figure without a sample")
        .containsExactly(
            "orders/s settled, with the inboxes", "CPU per settled order, with the inboxes");
  }

  private static BenchFigures.Figure named(List<BenchFigures.Figure> figures, String name) {
    return figures.stream().filter(figure -> figure.name().equals(name)).findFirst().orElseThrow();
  }

  private static InboxPrice.Sample sample(Verdict verdict, double perSecond, double cpuMillis) {
    return new InboxPrice.Sample(
        verdict,
        Optional.of(perSecond),
        Optional.of(cpuMillis),
        verdict == Verdict.PASS ? List.of() : List.of("every outbox event delivered"));
  }

  private static PrintStream quiet() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }
}
