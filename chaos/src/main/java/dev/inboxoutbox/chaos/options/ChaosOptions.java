package dev.inboxoutbox.chaos.options;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything a chaos run is parameterised by; printed into its report.
 *
 * <p>{@code orders} is a fixed number of distinct orders to send at {@code ratePerSecond}, or 0 for
 * a time-boxed run: the load and the faults last {@code window}, the load paced by what the
 * pipeline drains ({@link ClosedLoopPacer}) and {@code ratePerSecond} its ceiling.
 */
public record ChaosOptions(
    long seed,
    int orders,
    Duration window,
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

  /**
   * How long a service takes to serve again after a kill under a default run's load (9 to 20 s
   * measured, most near the lower end).
   */
  static final Duration RESTART_ALLOWANCE = Duration.ofSeconds(10);

  /** Rejects settings that would make a run meaningless or hang, with the reason. */
  public ChaosOptions {
    Objects.requireNonNull(repoRoot, "repoRoot");
    Objects.requireNonNull(reportDirectory, "reportDirectory");
    Objects.requireNonNull(negativeControl, "negativeControl");
    require(orders >= 0, "orders must be positive (or 0 for a time-boxed run), was " + orders);
    requirePositive(window, "duration");
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

  /** Whether the run lasts {@code window} rather than until {@code orders} are sent. */
  public boolean timeBoxed() {
    return orders == 0;
  }

  /**
   * How long a time-boxed run injects faults: the window less the time its last victims take to
   * serve again (a twelfth of the window, at most {@link #RESTART_ALLOWANCE}), so that the window
   * ends over a whole fleet and the settle phase drains at full speed. The load goes on until the
   * window ends.
   */
  public Duration faultPhase() {
    Duration twelfth = window.dividedBy(12);
    return window.minus(twelfth.compareTo(RESTART_ALLOWANCE) < 0 ? twelfth : RESTART_ALLOWANCE);
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
