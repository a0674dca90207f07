package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.report.TimelinePoint;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

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

  ProgressLine(PrintStream out, boolean terminal, Duration every) {
    this.out = out;
    this.terminal = terminal;
    this.everyMillis = every.toMillis();
  }

  /** For this process's console: a terminal when the JVM has one attached. */
  static ProgressLine forConsole(PrintStream out) {
    return new ProgressLine(out, System.console() != null, EVERY_WHEN_NOT_A_TERMINAL);
  }

  /** The line for the latest of a run's samples, {@code timeline} holding them all in order. */
  static String describe(List<TimelinePoint> timeline) {
    TimelinePoint latest = timeline.get(timeline.size() - 1);
    return String.format(
        Locale.ROOT,
        "[%5.1fs] sent %d  orders %d  settled %d  duplicates absorbed %d  kills %d",
        latest.atMillis() / 1000.0,
        latest.sent(),
        latest.orders(),
        latest.settled(),
        latest.duplicatesAbsorbed(),
        latest.kills());
  }

  /** Shows {@code text}, the state {@code atMillis} into the run. */
  synchronized void show(long atMillis, String text) {
    if (terminal) {
      out.print("\r" + text + "   ");
      out.flush();
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
    }
  }
}
