package dev.inboxoutbox.retention;

import java.time.Duration;

/** The run's sense of time: the budget reads it and the pause between batches sleeps on it. */
interface Ticker {

  Ticker SYSTEM =
      new Ticker() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void sleep(Duration pause) throws InterruptedException {
          Thread.sleep(pause.toMillis(), pause.toNanosPart() % 1_000_000);
        }
      };

  long nanoTime();

  void sleep(Duration pause) throws InterruptedException;
}
