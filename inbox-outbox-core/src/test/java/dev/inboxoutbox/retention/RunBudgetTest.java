package dev.inboxoutbox.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RunBudgetTest {

  private final ManualTicker ticker = new ManualTicker();

  @Test
  void everyStepGetsAFirstBatchInTheFirstPassEvenWhenTheBudgetIsGone() {
    RunBudget budget = new RunBudget(Duration.ofMillis(10), Duration.ZERO, ticker);
    assertThat(budget.startPass()).isTrue();

    RunBudget.Slice keys = budget.slice(3);
    assertThat(budget.startBatch(keys)).isTrue();
    ticker.advance(Duration.ofSeconds(1)); // one batch took far longer than the whole budget
    assertThat(budget.startBatch(keys)).isFalse();

    assertThat(budget.startBatch(budget.slice(2))).as("bodies").isTrue();
    assertThat(budget.startBatch(budget.slice(1))).as("outbox").isTrue();
    assertThat(budget.startPass()).isFalse();
    assertThat(budget.stopReason()).contains("time budget");
    assertThat(budget.batches()).isEqualTo(3);
  }

  @Test
  void aStepsShareIsTheTimeLeftSplitAmongTheStepsStillToGo() {
    RunBudget budget = new RunBudget(Duration.ofSeconds(9), Duration.ZERO, ticker);
    budget.startPass();

    RunBudget.Slice keys = budget.slice(3);
    int keyBatches = batchesOfOneSecond(budget, keys);
    RunBudget.Slice bodies = budget.slice(2);
    assertThat(budget.startBatch(bodies)).isTrue(); // finishes at once: a short batch
    RunBudget.Slice outbox = budget.slice(1);
    int outboxBatches = batchesOfOneSecond(budget, outbox);

    assertThat(keyBatches).as("a third of 9 s").isEqualTo(3);
    assertThat(outboxBatches).as("all that bodies left: 6 s").isEqualTo(6);
    assertThat(budget.startPass()).isFalse();
  }

  @Test
  void aLaterPassGivesWhatIsLeftToTheStepsStillBehind() {
    RunBudget budget = new RunBudget(Duration.ofSeconds(6), Duration.ZERO, ticker);
    budget.startPass();
    int first = batchesOfOneSecond(budget, budget.slice(3));
    budget.startBatch(budget.slice(2)); // both other steps finish at once
    budget.startBatch(budget.slice(1));

    assertThat(budget.startPass()).isTrue();
    int second = batchesOfOneSecond(budget, budget.slice(1));

    assertThat(first).isEqualTo(2);
    assertThat(second).isEqualTo(4);
    assertThat(budget.startPass()).isFalse();
  }

  @Test
  void thePauseComesBeforeEveryBatchButTheRunsFirstAndCountsAsTheStepsTime() {
    RunBudget budget = new RunBudget(Duration.ofSeconds(1), Duration.ofMillis(100), ticker);
    budget.startPass();
    RunBudget.Slice only = budget.slice(1);
    int batches = 0;
    while (budget.startBatch(only)) {
      batches++;
    }

    assertThat(ticker.slept).isEqualTo(Duration.ofMillis(100).multipliedBy(batches - 1));
    assertThat(batches).isEqualTo(11);
  }

  @Test
  void anInterruptStopsTheRunForGood() {
    RunBudget budget = new RunBudget(Duration.ofSeconds(1), Duration.ZERO, ticker);
    budget.startPass();
    Thread.currentThread().interrupt();
    try {
      assertThat(budget.startBatch(budget.slice(3))).isFalse();
      assertThat(budget.stopReason()).isEqualTo("interrupted");
      assertThat(budget.startPass()).isFalse();
    } finally {
      Thread.interrupted();
    }
  }

  /** Batches of a step each taking one second, until its slice says stop. */
  private int batchesOfOneSecond(RunBudget budget, RunBudget.Slice slice) {
    int batches = 0;
    while (budget.startBatch(slice)) {
      ticker.advance(Duration.ofSeconds(1));
      batches++;
    }
    return batches;
  }

  private static final class ManualTicker implements Ticker {
    private long now;
    private Duration slept = Duration.ZERO;

    void advance(Duration by) {
      now += by.toNanos();
    }

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void sleep(Duration pause) {
      slept = slept.plus(pause);
      advance(pause);
    }
  }
}
