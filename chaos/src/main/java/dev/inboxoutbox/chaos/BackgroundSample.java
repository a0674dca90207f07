package dev.inboxoutbox.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Takes a sample at most once per period on a thread of its own, never two at once. The progress
 * sample asks every service for its metrics and the orders database for its counts; while a service
 * or PostgreSQL does not answer, one sample lasts seconds, and the kill loop that used to take it
 * inline then stopped killing, arming crash points and starting infrastructure faults.
 */
final class BackgroundSample implements AutoCloseable {

  private final Runnable sample;
  private final Duration every;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread sampler = new Thread(task, "iox-progress-sample");
            sampler.setDaemon(true);
            return sampler;
          });
  private Future<?> last = CompletableFuture.completedFuture(null);
  private Instant next = Instant.MIN;

  BackgroundSample(Runnable sample, Duration every) {
    this.sample = sample;
    this.every = every;
  }

  /**
   * Starts a sample when one is due and the last has ended; rethrows the last one's failure.
   * Returns at once either way.
   */
  synchronized void tick(Instant now) throws ExecutionException, InterruptedException {
    if (!last.isDone()) {
      return;
    }
    last.get();
    if (now.isBefore(next)) {
      return;
    }
    next = now.plus(every);
    last = thread.submit(sample);
  }

  /** Waits for the sample under way, so that the caller's next sample is the only one. */
  @Override
  public void close() throws ExecutionException, InterruptedException {
    Future<?> running;
    synchronized (this) {
      running = last;
    }
    try {
      running.get();
    } finally {
      thread.shutdownNow();
    }
  }
}
