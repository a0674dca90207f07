package dev.inboxoutbox.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One process's line of Linux's {@code /proc/<pid>/stat}: the CPU it used in ticks of USER_HZ, its
 * own ({@code utime}, {@code stime}) and that of the children it reaped ({@code cutime}, {@code
 * cstime}), and when it started ({@code starttime}), which tells a reused PID apart.
 */
record ProcStat(
    long pid,
    String command,
    long userTicks,
    long systemTicks,
    long reapedChildrenUserTicks,
    long reapedChildrenSystemTicks,
    long startTicks) {

  /**
   * Fields after the command, counted from the state (field 3 of proc(5)): utime is field 14, stime
   * 15, cutime 16, cstime 17, starttime 22.
   */
  private static final int USER = 14 - 3;

  private static final int SYSTEM = 15 - 3;
  private static final int REAPED_USER = 16 - 3;
  private static final int REAPED_SYSTEM = 17 - 3;
  private static final int START = 22 - 3;

  /** The process's own CPU. */
  long ownTicks() {
    return userTicks + systemTicks;
  }

  /** Its own CPU and that of the children it waited for. */
  long withReapedChildrenTicks() {
    return ownTicks() + reapedChildrenUserTicks + reapedChildrenSystemTicks;
  }

  /** Empty when the process is gone (or this is not Linux). */
  static Optional<ProcStat> read(long pid) {
    try {
      return Optional.of(parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat"))));
    } catch (IOException | RuntimeException gone) {
      return Optional.empty();
    }
  }

  /**
   * {@code pid (command) state ppid ...}. The command is the executable's name, which may hold
   * spaces and parentheses of its own, so it ends at the last closing parenthesis of the line.
   */
  static ProcStat parse(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 1 || close < open) {
      throw new IllegalArgumentException("not a line of /proc/<pid>/stat: " + line);
    }
    String[] field = line.substring(close + 1).trim().split("\\s+");
    if (field.length <= START) {
      throw new IllegalArgumentException(
          "a line of /proc/<pid>/stat with "
              + (field.length + 2)
              + " fields, at least "
              + (START + 3)
              + " expected: "
              + line);
    }
    return new ProcStat(
        Long.parseLong(line.substring(0, open).trim()),
        line.substring(open + 1, close),
        Long.parseLong(field[USER]),
        Long.parseLong(field[SYSTEM]),
        Long.parseLong(field[REAPED_USER]),
        Long.parseLong(field[REAPED_SYSTEM]),
        Long.parseLong(field[START]));
  }
}
