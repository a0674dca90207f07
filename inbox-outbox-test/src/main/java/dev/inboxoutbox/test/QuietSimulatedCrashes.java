package dev.inboxoutbox.test;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Keeps the kit's simulated crashes out of the warning and error log. spring-kafka logs a container
 * stopped by an {@link Error} at ERROR with its stack trace, twice ("Stopping container due to an
 * Error", then "Error while stopping the container"); for a crash the kit planned, that is noise in
 * a passing build that hides real errors. Only events whose throwable is, or is caused by, a {@link
 * SimulatedCrash} are dropped; the kit logs each crash itself, in one line at INFO.
 */
final class QuietSimulatedCrashes extends TurboFilter {

  /**
   * Adds the filter to logback's context unless it is there. Called for each kit, because Spring
   * Boot resets logback when a new application context starts. Only load this class when logback is
   * on the class path: it extends one of logback's.
   */
  static void install() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    synchronized (context) {
      if (context.getTurboFilterList().stream().anyMatch(QuietSimulatedCrashes.class::isInstance)) {
        return;
      }
      QuietSimulatedCrashes filter = new QuietSimulatedCrashes();
      filter.setName("iox-test-kit-simulated-crashes");
      filter.setContext(context);
      filter.start();
      context.addTurboFilter(filter);
    }
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level == null || !level.isGreaterOrEqual(Level.WARN)) {
      return FilterReply.NEUTRAL;
    }
    return causedBySimulatedCrash(t) ? FilterReply.DENY : FilterReply.NEUTRAL;
  }

  static boolean causedBySimulatedCrash(Throwable thrown) {
    for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
      if (cause instanceof SimulatedCrash) {
        return true;
      }
      if (cause.getCause() == cause) {
        return false;
      }
    }
    return false;
  }
}
