package dev.inboxoutbox.retention;

import java.time.Duration;

/**
 * One run's time, shared fairly between its steps. The run goes in passes over the steps that still
 * have work; in each pass a step gets an equal share of the time left to the steps after it, so a
 * step that finishes early hands its unused time to the others, and a step with a backlog takes the
 * rest of the run only once the others are done. Every step gets at least one batch in the first
 * pass, however slow a batch is, so none starves behind another.
 */
final class RunBudget {

  private final Duration budget;
  private final Duration pause;
  private final Ticker ticker;
  private final long started;
  private int batches;
  private int passes;
  private String stopReason;

  RunBudget(Duration budget, Duration pause, Ticker ticker) {
    this.budget = budget;
    this.pause = pause;
    this.ticker = ticker;
    this.started = ticker.nanoTime();
  }

  /** Whether another pass over the steps may start: always the first, then while time is left. */
  boolean startPass() {
    if (stopReason == null && passes > 0 && remainingNanos() <= 0) {
      stopReason = "time budget of " + budget + " spent";
    }
    if (stopReason != null) {
      return false;
    }
    passes++;
    return true;
  }

  /** A step's share of this pass: the time left split evenly among the steps still to go. */
  Slice slice(int stepsLeftInPass) {
    return new Slice(ticker.nanoTime(), Math.max(0, remainingNanos()) / stepsLeftInPass);
  }

  /**
   * Whether the step owning {@code slice} may run another batch now, pausing first if one ran
   * before. Once the run is stopped (interrupted), it stays stopped.
   */
  boolean startBatch(Slice slice) {
    if (stopReason != null) {
      return false;
    }
    boolean guaranteed = slice.batches == 0 && (passes == 1 || slice.share > 0);
    if (!guaranteed && ticker.nanoTime() - slice.started >= slice.share) {
      return false;
    }
    if (Thread.currentThread().isInterrupted() || !pauseAfterFirst()) {
      stopReason = "interrupted";
      return false;
    }
    slice.batches++;
    batches++;
    return true;
  }

  int batches() {
    return batches;
  }

  /** Why the run stopped before every step was done; null while it may go on. */
  String stopReason() {
    return stopReason;
  }

  private long remainingNanos() {
    return budget.toNanos() - (ticker.nanoTime() - started);
  }

  private boolean pauseAfterFirst() {
    if (batches == 0 || pause.isZero()) {
      return true;
    }
    try {
      ticker.sleep(pause);
      return true;
    } catch (InterruptedException e) {
      // Whoever interrupted (Schedule.close) still needs to see it.
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** One step's time within one pass. */
  static final class Slice {
    private final long started;
    private final long share;
    private int batches;

    private Slice(long started, long share) {
      this.started = started;
      this.share = share;
    }
  }
}
