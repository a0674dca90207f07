package dev.inboxoutbox.devstack;

import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code pg_ctl} and waits for it. As zonky does, it runs in a new user namespace when this
 * JVM is root, since PostgreSQL refuses to run as root.
 */
final class PgCtl {

  private PgCtl() {}

  /**
   * Runs {@code pgCtl} with {@code arguments} (the first is its action), its output appended to
   * {@code log}; throws when it fails, naming {@code server}.
   */
  static void run(Path pgCtl, List<String> arguments, Path log, String server) {
    List<String> command = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      command.addAll(List.of("unshare", "-U"));
    }
    command.add(pgCtl.toString());
    command.addAll(arguments);
    try {
      Process run =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      int exit = run.waitFor();
      if (exit != 0) {
        throw new DevStackException(
            "pg_ctl "
                + arguments.get(0)
                + " exited with "
                + exit
                + " for "
                + server
                + "; see "
                + log);
      }
    } catch (IOException e) {
      throw new DevStackException("cannot run " + pgCtl + " for " + server, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevStackException("interrupted running pg_ctl for " + server, e);
    }
  }
}
