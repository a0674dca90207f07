package dev.inboxoutbox;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The old entry point of RelayIT and IdempotentConsumerIT, now an Awaitility wait; new tests call
 * {@code Awaitility.await(what)} directly.
 */
public final class Await {

  private Await() {}

  public static void until(BooleanSupplier condition, String what, Duration patience)
      throws InterruptedException {
    // On the caller's thread, as before: some conditions poll a KafkaConsumer the test owns.
    await(what)
        .atMost(patience)
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .until(condition::getAsBoolean);
  }
}
