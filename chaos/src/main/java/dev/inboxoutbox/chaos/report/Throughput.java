package dev.inboxoutbox.chaos.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Orders settled per second over the load: the settled count of the timeline's last sample within
 * the load (a time-boxed run's window, or until a run of fixed orders stopped sending), divided by
 * that sample's time.
 *
 * @param loadMillis the window, or how long a run of fixed orders sent
 * @param settled orders paid, payment failed or cancelled at the sample
 * @param atMillis the sample's time since the load started
 */
public record Throughput(
    boolean window, long loadMillis, long settled, long atMillis, double settledPerSecond) {

  /** Empty when no sample within the load read the orders database. */
  public static Optional<Throughput> over(
      List<TimelinePoint> timeline, long loadMillis, boolean window) {
    TimelinePoint last = null;
    for (TimelinePoint point : timeline) {
      if (point.atMillis() <= loadMillis && point.atMillis() > 0 && point.settled() != null) {
        last = point;
      }
    }
    return Optional.ofNullable(last)
        .map(
            point ->
                new Throughput(
                    window,
                    loadMillis,
                    point.settled(),
                    point.atMillis(),
                    point.settled() * 1000.0 / point.atMillis()));
  }

  /** {@code throughput: 84.2 orders/s settled over the 120 s window (10104 by 119.6 s)}. */
  String line() {
    return String.format(
        Locale.ROOT,
        "throughput: %.1f orders/s settled over the %d s %s (%d settled by %.1f s)",
        settledPerSecond,
        Math.round(loadMillis / 1000.0),
        window ? "window" : "load",
        settled,
        atMillis / 1000.0);
  }
}
