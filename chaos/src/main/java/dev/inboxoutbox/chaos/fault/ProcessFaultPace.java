package dev.inboxoutbox.chaos.fault;

import java.time.Duration;

/**
 * The rate a time-boxed run injects process faults at: the rate of its proof floor with a margin,
 * not as many as restarts allow. On two cores each restart costs about 5 CPU-seconds the pipeline
 * then lacks, so a run that kills beyond its floor settles fewer orders than its floor asks for
 * (the same seed ran 19 faults and 3,120 orders, then 24 faults and 2,810). While the run is ahead
 * of this pace by {@link #LEAD} faults, kills wait and crash points are disarmed; behind it, both
 * go on as fast as eligible victims allow.
 */
public final class ProcessFaultPace {

  /** The share above the floor the pace aims at, so that a late restart does not miss it. */
  static final double MARGIN = 1.15;

  /** How many faults ahead of the pace a run may be before faults wait. */
  static final int LEAD = 2;

  private final double faultsPerWindow;
  private final Duration window;

  private ProcessFaultPace(double faultsPerWindow, Duration window) {
    this.faultsPerWindow = faultsPerWindow;
    this.window = window;
  }

  /**
   * The pace for a window whose floor claims {@code floor} process faults: that rate with {@link
   * #MARGIN}, never below the rate {@code floorRate} faults per {@code floorWindow} (the default
   * window's), so that a window longer than the default one keeps the default rate.
   */
  public static ProcessFaultPace of(
      Duration window, long floor, long floorRate, Duration floorWindow) {
    if (window.isZero() || window.isNegative()) {
      throw new IllegalArgumentException("window must be positive, was " + window);
    }
    double atDefaultRate = (double) floorRate * window.toMillis() / floorWindow.toMillis();
    return new ProcessFaultPace(Math.max(floor, atDefaultRate) * MARGIN, window);
  }

  /** How many process faults the pace asks for by the end of the window. */
  public long target() {
    return (long) Math.ceil(faultsPerWindow);
  }

  /** Whether {@code faults} so far, {@code elapsed} into the window, run ahead of the pace. */
  public boolean ahead(long faults, Duration elapsed) {
    double due = faultsPerWindow * Math.min(1.0, (double) elapsed.toMillis() / window.toMillis());
    return faults >= Math.ceil(due) + LEAD;
  }
}
