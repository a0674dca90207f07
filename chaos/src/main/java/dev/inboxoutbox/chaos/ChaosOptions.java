package dev.inboxoutbox.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/** Everything a chaos run is parameterised by; printed into its report. */
public record ChaosOptions(
    long seed,
    int orders,
    int ratePerSecond,
    int orderInstances,
    int paymentInstances,
    Duration killIntervalMin,
    Duration killIntervalMax,
    int minKills,
    Duration restartDelay,
    double crashPointProbability,
    NegativeControl negativeControl,
    double retryShare,
    double conflictShare,
    double malformedShare,
    double cancelShare,
    double webhookDuplicateShare,
    Duration quiescenceTimeout,
    Path repoRoot,
    Path reportDirectory) {

  /** Rejects settings that would make a run meaningless or hang, with the reason. */
  public ChaosOptions {
    Objects.requireNonNull(repoRoot, "repoRoot");
    Objects.requireNonNull(reportDirectory, "reportDirectory");
    Objects.requireNonNull(negativeControl, "negativeControl");
    require(orders > 0, "orders must be positive, was " + orders);
    require(
        ratePerSecond >= 0,
        "rate must be 0 (as fast as possible) or positive, was " + ratePerSecond);
    require(
        orderInstances >= 1 && paymentInstances >= 1,
        "each service needs at least one instance, was "
            + orderInstances
            + " order-consumer and "
            + paymentInstances
            + " payment-consumer");
    require(minKills >= 0, "min-kills must not be negative, was " + minKills);
    // The last live instance of a service is never killed: with one instance each nothing can be.
    require(
        minKills == 0 || orderInstances > 1 || paymentInstances > 1,
        "min-kills "
            + minKills
            + " needs a service with at least two instances (the last live instance is never killed)");
    requirePositive(killIntervalMin, "kill-every-min");
    requirePositive(killIntervalMax, "kill-every-max");
    require(
        killIntervalMin.compareTo(killIntervalMax) <= 0,
        "kill-every-min " + killIntervalMin + " is longer than kill-every-max " + killIntervalMax);
    require(!restartDelay.isNegative(), "restart-delay must not be negative, was " + restartDelay);
    requirePositive(quiescenceTimeout, "quiescence-timeout");
    requireShare(crashPointProbability, "crash-point-probability");
    requireShare(retryShare, "retry-share");
    requireShare(conflictShare, "conflict-share");
    requireShare(malformedShare, "malformed-share");
    requireShare(cancelShare, "cancel-share");
    requireShare(webhookDuplicateShare, "webhook-duplicate-share");
  }

  private static void require(boolean condition, String reason) {
    if (!condition) {
      throw new IllegalArgumentException(reason);
    }
  }

  private static void requirePositive(Duration duration, String name) {
    require(
        duration != null && !duration.isNegative() && !duration.isZero(),
        name + " must be positive, was " + duration);
  }

  private static void requireShare(double share, String name) {
    require(share >= 0 && share <= 1, name + " must be between 0 and 1, was " + share);
  }
}
