package dev.inboxoutbox.chaos.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ThroughputTest {

  /**
   * The last sample within the window that read the orders database: one taken after the window
   * (the settle phase) or one that could not read is not it.
   */
  @Test
  void theLastSampleWithinTheWindowThatReadTheCountsGivesTheRate() {
    List<TimelinePoint> timeline =
        List.of(
            new TimelinePoint(1_000, 150, 0L, 0L, 0, 0),
            new TimelinePoint(59_000, 9_000, 8_800L, 8_260L, 0, 0),
            new TimelinePoint(59_900, 9_100, null, null, 0, 0),
            new TimelinePoint(61_000, 9_100, 9_050L, 9_000L, 0, 0));

    assertThat(Throughput.over(timeline, 60_000, true))
        .hasValue(new Throughput(true, 60_000, 8_260, 59_000, 140.0));
    assertThat(Throughput.over(timeline, 60_000, true).orElseThrow().line())
        .isEqualTo(
            "throughput: 140.0 orders/s settled over the 60 s window (8260 settled by 59.0 s)");
  }

  @Test
  void withoutASampleThatReadTheCountsThereIsNone() {
    assertThat(
            Throughput.over(List.of(new TimelinePoint(1_000, 150, null, null, 0, 0)), 60_000, true))
        .isEmpty();
    assertThat(Throughput.over(List.of(), 60_000, false)).isEmpty();
  }

  @Test
  void aRunOfFixedOrdersCountsOverItsLoad() {
    assertThat(
            Throughput.over(
                    List.of(new TimelinePoint(40_000, 5_000, 4_000L, 3_000L, 0, 0)), 42_500, false)
                .orElseThrow()
                .line())
        .isEqualTo("throughput: 75.0 orders/s settled over the 43 s load (3000 settled by 40.0 s)");
  }
}
