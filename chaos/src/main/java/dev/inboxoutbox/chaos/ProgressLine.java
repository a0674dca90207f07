package dev.inboxoutbox.chaos;

import java.io.PrintStream;
import java.time.Duration;

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
