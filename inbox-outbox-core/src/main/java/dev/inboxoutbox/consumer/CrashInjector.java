package dev.inboxoutbox.consumer;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/** Lets a chaos run kill the process (or a test throw) at a {@link CrashPoint}. */
@FunctionalInterface
public interface CrashInjector {

  CrashInjector NONE = point -> {};

  void at(CrashPoint point);

  /**
   * Halts the JVM (exit 137, no shutdown hooks, like SIGKILL) at each point with its probability.
   * For chaos runs only: nothing is flushed, no offsets are committed, no connection is closed.
   */
  static CrashInjector halting(Map<CrashPoint, Double> probabilities) {
    return halting(probabilities, () -> true);
  }

  /**
   * As {@link #halting(Map)}, but only while {@code armed} holds: a chaos harness disarms the
   * points once its kill phase is over. Asked only when a draw would halt, so a file check is cheap
   * enough.
   */
  static CrashInjector halting(Map<CrashPoint, Double> probabilities, BooleanSupplier armed) {
    Map<CrashPoint, Double> odds = new EnumMap<>(CrashPoint.class);
    odds.putAll(probabilities);
    odds.values()
        .forEach(
            p -> {
              if (p < 0 || p > 1) {
                throw new IllegalArgumentException(
                    "crash probability must be within [0, 1]; was " + p);
              }
            });
    return point -> {
      Double probability = odds.get(point);
      if (probability != null
          && ThreadLocalRandom.current().nextDouble() < probability
          && armed.getAsBoolean()) {
        System.err.println("iox chaos: halting at crash point " + point);
        Runtime.getRuntime().halt(137);
      }
    };
  }
}
