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
   * How long before a time-boxed window's end the process faults stop: an instance killed in the
   * window's last seconds took 20 to 25 s to serve again under the run's load, and the settle phase
   * drained at 60 to 80 orders a second while it started.
   */
  static final Duration PROCESS_FAULTS_STOP_BEFORE_THE_END = Duration.ofSeconds(15);

  /**
   * How long before a time-boxed window's end the other faults stop: a PostgreSQL crash, broker
   * kill or network fault ends before the window does, and the services are serving again within
   * seconds of it.
   */
  static final Duration OTHER_FAULTS_STOP_BEFORE_THE_END = Duration.ofSeconds(10);

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

  /** These options for another arm of a comparison: its seed and its control. */
  public ChaosOptions forArm(long seed, NegativeControl negativeControl) {
    return new ChaosOptions(
        seed,
        orders,
        window,
        ratePerSecond,
        orderInstances,
        paymentInstances,
        killIntervalMin,
        killIntervalMax,
        minKills,
        restartDelay,
        crashPointProbability,
        negativeControl,
        retryShare,
        conflictShare,
        malformedShare,
        cancelShare,
        webhookDuplicateShare,
        quiescenceTimeout,
        repoRoot,
        reportDirectory);
  }

  /** Whether the run lasts {@code window} rather than until {@code orders} are sent. */
  public boolean timeBoxed() {
    return orders == 0;
  }

  /**
   * How long a time-boxed run kills processes and arms crash points: the window less the time its
   * last victims take to serve again (an eighth of the window, at most {@link
   * #PROCESS_FAULTS_STOP_BEFORE_THE_END}), so that the window ends over a whole fleet and the
   * settle phase drains at full speed. The load goes on until the window ends.
   */
  public Duration processFaultPhase() {
    return window.minus(shorter(window.dividedBy(8), PROCESS_FAULTS_STOP_BEFORE_THE_END));
  }

  /**
   * How long a time-boxed run injects PostgreSQL, broker and network faults: the window less a
   * twelfth of it, at most {@link #OTHER_FAULTS_STOP_BEFORE_THE_END}.
   */
  public Duration faultPhase() {
    return window.minus(shorter(window.dividedBy(12), OTHER_FAULTS_STOP_BEFORE_THE_END));
  }

  private static Duration shorter(Duration a, Duration b) {
    return a.compareTo(b) < 0 ? a : b;
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
