package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.report.TimelinePoint;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The console's progress line: rewritten in place on a terminal; elsewhere (a file, a CI log) a
 * whole line now and then, since carriage returns there make one endless line.
 */
final class ProgressLine {

  /** How often a line is written when the output is not a terminal. */
  static final Duration EVERY_WHEN_NOT_A_TERMINAL = Duration.ofSeconds(10);

  private final PrintStream out;
  private final boolean terminal;
  private final long everyMillis;
  private long lastWrittenAtMillis = -1;
  private boolean open;
  // What the terminal's line holds: a shorter line is padded to it, else the end of the longer
  // one (a note that came and went) stays on screen.
  private int shownLength;

  ProgressLine(PrintStream out, boolean terminal, Duration every) {
    this.out = out;
    this.terminal = terminal;
    this.everyMillis = every.toMillis();
  }

  /** For this process's console: a terminal when the JVM has one attached. */
  static ProgressLine forConsole(PrintStream out) {
    return new ProgressLine(out, System.console() != null, EVERY_WHEN_NOT_A_TERMINAL);
  }

  /**
   * The line for the latest of a run's samples, {@code timeline} holding them all in order. A count
   * the latest sample could not read shows as the last one read, marked {@code ?}, with a note
   * saying so: the run goes on while PostgreSQL is down, and its counts have not dropped.
   */
  static String describe(List<TimelinePoint> timeline) {
    TimelinePoint latest = timeline.get(timeline.size() - 1);
    String line =
        String.format(
            Locale.ROOT,
            "[%5.1fs] sent %d  orders %s  settled %s  duplicates absorbed %d  kills %d",
            latest.atMillis() / 1000.0,
            latest.sent(),
            count(latest.orders(), timeline, TimelinePoint::orders),
            count(latest.settled(), timeline, TimelinePoint::settled),
            latest.duplicatesAbsorbed(),
            latest.kills());
    if (latest.orders() != null && latest.settled() != null) {
      return line;
    }
    boolean anyRead = timeline.stream().anyMatch(point -> point.orders() != null);
    return line
        + (anyRead
            ? "  (orders database unreachable: last counts read)"
            : "  (orders database unreachable: no count read yet)");
  }

  /** {@code latest}, or the last count read before it marked {@code ?}, or {@code ?} alone. */
  private static String count(
      Long latest, List<TimelinePoint> timeline, Function<TimelinePoint, Long> of) {
    if (latest != null) {
      return latest.toString();
    }
    for (int i = timeline.size() - 1; i >= 0; i--) {
      Long read = of.apply(timeline.get(i));
      if (read != null) {
        return read + "?";
      }
    }
    return "?";
  }

  /** Shows {@code text}, the state {@code atMillis} into the run. */
  synchronized void show(long atMillis, String text) {
    if (terminal) {
      String shown = text + "   ";
      out.print("\r" + shown + " ".repeat(Math.max(0, shownLength - shown.length())));
      out.flush();
      shownLength = shown.length();
      open = true;
    } else if (lastWrittenAtMillis < 0 || atMillis - lastWrittenAtMillis >= everyMillis) {
      out.println(text);
      lastWrittenAtMillis = atMillis;
    }
  }

  /** Ends a line left open on a terminal, so that what follows starts on a line of its own. */
  synchronized void end() {
    if (open) {
      out.println();
      open = false;
      shownLength = 0;
    }
  }
}
