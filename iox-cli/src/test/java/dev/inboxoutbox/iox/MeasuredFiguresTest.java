package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.inboxoutbox.iox.MeasuredFigures.Figure;
import dev.inboxoutbox.iox.MeasuredFigures.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link MeasuredFigures} takes for a figure, and what a home must state to hold one. */
class MeasuredFiguresTest {

  private static final String HOME =
      """
      | Figure | Reproduce | Current (code of) | Ratio (target) |
      |---|---|---|---|
      | Relay: commit to consumer | `./iox bench --relay-only` | p50 24.2 ms (22.9-34.4), p99 45.2 ms (42.9-66.9); 59 busy, 24 idle (`69ab904`) | p99 ≤ 100 ms: met |
      | Relay: backlog drain vs Kafka Connect | same run | 19,223 events/s (16,033-24,769) vs 9,390 | 2.05 (≥ 1.0: met) |
      | Retention beside a consumer | `./iox bench --retention-only` | cleanup 23,354 to 31,606 keys/s | 1.02 |
      """;

  @Test
  void aFigureTheHomeStatesIsHeld() {
    String page =
        """
        The relay drains a backlog at 19,223 events/s, 2.05× a Kafka Connect worker, and keeps p99
        at 45.2 ms ([benchmarks.md](benchmarks.md#relay)). The cleanup deletes 23,354 to 31,606
        keys/s beside a consumer; the run used 59 CPU-seconds.
        """;

    assertThat(MeasuredFigures.quotedIn(page))
        .extracting(Figure::number)
        .containsExactly("19,223", "2.05", "45.2", "23,354", "31,606", "59");
    assertThat(MeasuredFigures.notHeldByAny(page, List.of(HOME))).isEmpty();
  }

  @Test
  void aPlantedFigureTheHomeLacksIsReported() {
    String page =
        """
        The relay drained a backlog at 28,651 events/s, 1.41× Kafka Connect, and kept p99 at 50 ms
        ([benchmarks.md](benchmarks.md#relay)).

        - A plain producer sends the same records at 178,000 to 335,000 per second (3 to 6 µs
          each).
        """;

    assertThat(MeasuredFigures.notHeldByAny(page, List.of(HOME)))
        .hasSize(7)
        .anySatisfy(missing -> assertThat(missing).startsWith("28,651 (RATE)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("1.41 (RATIO)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("50 (MILLISECONDS)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("178,000 (RATE)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("335,000 (RATE)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("3 (MICROSECONDS)"))
        .anySatisfy(missing -> assertThat(missing).startsWith("6 (MICROSECONDS)"));
  }

  @Test
  void aFigureWithTheSameNumberInAnotherUnitIsNotHeld() {
    String page = "The relay kept p99 at 24 ms ([benchmarks.md](benchmarks.md)).";

    assertThat(MeasuredFigures.notHeldByAny(page, List.of(HOME)))
        .singleElement()
        .asString()
        .startsWith("24 (MILLISECONDS)");
  }

  @Test
  void settingsAndDefaultsAreNotFigures() {
    String page =
        """
        A failed batch is retried after 200 ms, doubling to 10 s, and the standby tries the lock
        every 500 ms. `./iox chaos --duration 120s` runs a window; `--relay-rate 2000` paces the
        writers at `2,000 events/s`.

        | Setting | Default | Meaning |
        |---|---|---|
        | `pollInterval` | 25 ms | the longest wait for a batch |

        ```bash
        ./iox bench --relay-only --relay-events 10000   # 28,651 events/s here once
        ```
        """;

    assertThat(MeasuredFigures.quotedIn(page)).isEmpty();
  }

  @Test
  void aDurationIsAFigureWhereTheSentenceSaysItWasMeasured() {
    String page =
        """
        Each retry waits 200 ms. A takeover took 0.3 s in `RelayIT`. The bench measured p50 18 ms.
        """;

    assertThat(MeasuredFigures.quotedIn(page))
        .extracting(Figure::number, Figure::unit)
        .containsExactly(tuple("0.3", Unit.SECONDS), tuple("18", Unit.MILLISECONDS));
  }
}
