package dev.inboxoutbox.chaos.extension;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/**
 * Halts the JVM (exit 137, no shutdown hooks, like SIGKILL) at each {@link CrashPoint} with its
 * probability, while {@code armed} holds: nothing is flushed, no offsets are committed, no
 * connection is closed.
 */
public final class CrashInjector {

  /** The exit code of a halt, the same as a SIGKILLed JVM's. */
  public static final int HALT_STATUS = 137;

  private final Map<CrashPoint, Double> odds;
  private final BooleanSupplier armed;
  private final Runnable halt;

  CrashInjector(Map<CrashPoint, Double> probabilities, BooleanSupplier armed, Runnable halt) {
    Map<CrashPoint, Double> odds = new EnumMap<>(CrashPoint.class);
    odds.putAll(probabilities);
    odds.values()
        .forEach(
            p -> {
              if (p == null || p < 0 || p > 1) {
                throw new IllegalArgumentException(
                    "crash probability must be within [0, 1]; was " + p);
              }
            });
    this.odds = odds;
    this.armed = armed;
    this.halt = halt;
  }

  /**
   * Halts at each point with its probability while {@code armed} holds: a chaos harness disarms the
   * points once its kill phase is over. Asked only when a draw would halt, so a file check is cheap
   * enough.
   */
  public static CrashInjector halting(
      Map<CrashPoint, Double> probabilities, BooleanSupplier armed) {
    return new CrashInjector(probabilities, armed, () -> Runtime.getRuntime().halt(HALT_STATUS));
  }

  /** Whether any point may fire. */
  public boolean active() {
    return odds.values().stream().anyMatch(p -> p > 0);
  }

  public void at(CrashPoint point) {
    Double probability = odds.get(point);
    if (probability != null
        && ThreadLocalRandom.current().nextDouble() < probability
        && armed.getAsBoolean()) {
      System.err.println("iox chaos: halting at crash point " + point);
      halt.run();
    }
  }
}
