package dev.inboxoutbox.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.consumer.ConsumerStats.Stage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ConsumerStagesTest {

  @Test
  void aThreadsSpanLeavesItsFirstBatchOutAndEndsAtItsLast() throws Exception {
    ConsumerStages.Span span = new ConsumerStages.Span();
    long before = System.nanoTime();
    span.batchDone(500, Map.of(Stage.POLL, 90_000_000L, Stage.CLAIM, 1_000L));
    Thread.sleep(5);
    span.batchDone(500, Map.of(Stage.POLL, 90_000_500L, Stage.CLAIM, 2_000L));
    span.batchDone(200, Map.of(Stage.POLL, 90_001_000L, Stage.CLAIM, 4_000L));
    long after = System.nanoTime();

    ConsumerStages.Run run = ConsumerStages.Run.of(1000, List.of(span));

    assertThat(run.records()).isEqualTo(700);
    assertThat(run.nanos(Stage.POLL))
        .as("the first poll, joining the group, left out")
        .isEqualTo(1_000);
    assertThat(run.nanos(Stage.CLAIM)).isEqualTo(3_000);
    assertThat(run.threadNanos()).isBetween(5_000_000L, after - before);
  }

  @Test
  void aThreadWithOneBatchHasNoSpanAndTheOthersAddUp() {
    ConsumerStages.Span one = new ConsumerStages.Span();
    one.batchDone(500, Map.of(Stage.POLL, 1_000L));
    ConsumerStages.Span two = new ConsumerStages.Span();
    two.batchDone(10, Map.of(Stage.POLL, 1_000L));
    two.batchDone(10, Map.of(Stage.POLL, 3_000L));

    ConsumerStages.Run run = ConsumerStages.Run.of(1000, List.of(one, two));
    ConsumerStages.Run none = ConsumerStages.Run.of(1000, List.of(one));

    assertThat(run.records()).isEqualTo(10);
    assertThat(run.nanos(Stage.POLL)).isEqualTo(2_000);
    assertThat(none.threadNanos()).isZero();
    assertThat(none.stageNanos()).isEmpty();
  }

  @Test
  void sharesOverSeveralRunsWeighEachRunByItsThreadTime() {
    ConsumerStages.Run run =
        new ConsumerStages.Run(1, 10, 1_000, Map.of(Stage.CLAIM, 250L, Stage.POLL, 250L));
    List<ConsumerStages.Run> runs =
        List.of(run, new ConsumerStages.Run(1, 10, 3_000, Map.of(Stage.CLAIM, 750L)));

    assertThat(run.share(Stage.CLAIM)).isCloseTo(25.0, within(1e-9));
    assertThat(run.otherShare()).isCloseTo(50.0, within(1e-9));
    assertThat(ConsumerStages.share(runs, Stage.CLAIM)).isCloseTo(25.0, within(1e-9));
    assertThat(ConsumerStages.otherShare(runs)).isCloseTo(68.75, within(1e-9));
  }

  @Test
  void theTableShowsOnlyTheStagesAnArmHasAndTheFiguresAreDetails() throws Exception {
    List<ConsumerStages.Run> inbox =
        List.of(
            new ConsumerStages.Run(
                1, 100, 1_000_000, Map.of(Stage.CLAIM, 250_000L, Stage.POLL, 100_000L)));
    List<ConsumerStages.Run> plain =
        List.of(new ConsumerStages.Run(1, 100, 500_000, Map.of(Stage.POLL, 100_000L)));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsumerStages.print(
        new PrintStream(bytes, true, StandardCharsets.UTF_8), "1p/1t", inbox, plain);
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table)
        .containsPattern("claim +25\\.0% +2\\.5 +- +-")
        .containsPattern("poll +10\\.0% +1\\.0 +20\\.0% +1\\.0")
        .containsPattern("other \\(idle polls, loop\\) +65\\.0% +80\\.0%")
        .containsPattern("total +100\\.0% +10\\.0 +100\\.0% +5\\.0");

    BenchFigures figures = new BenchFigures();
    ConsumerStages.addFigures(
        figures, "consumer", "1p/1t", "no inbox", ConsumerStages.PLAIN, plain);
    JsonNode json = JsonMapper.builder().build().readTree(figures.toJson()).get("figures");
    assertThat(json.size()).isEqualTo(ConsumerStages.PLAIN.size() + 1);
    assertThat(json.get(0).get("name").asString()).isEqualTo("1p/1t no inbox: poll");
    assertThat(json.get(0).get("median").asDouble()).isEqualTo(20.0);
    assertThat(json.get(0).get("detail").asBoolean()).isTrue();
  }
}
