package dev.inboxoutbox;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition until it holds or a deadline passes; integration tests never assert on timing.
 */
public final class Await {

  private Await() {}

  public static void until(BooleanSupplier condition, String what, Duration patience)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(patience);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("timed out after " + patience + " waiting for: " + what);
      }
      Thread.sleep(50);
    }
  }
}
