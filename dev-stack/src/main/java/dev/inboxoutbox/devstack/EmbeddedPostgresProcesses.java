package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Kills and restarts the embedded server's processes. The postmaster's PID is the first line of
 * {@code postmaster.pid} in the data directory; its binary tells where {@code pg_ctl} is. A restart
 * is {@code pg_ctl restart}, which starts a server whose PID file is stale with the command line
 * the first start recorded in {@code postmaster.opts}: same port, same settings ({@link PgCtl}).
 */
final class EmbeddedPostgresProcesses implements PostgresServer.Processes {

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_TIMEOUT_SECONDS = 120;

  private final Path dataDirectory;
  private Path pgCtl;

  EmbeddedPostgresProcesses(Path dataDirectory) {
    this.dataDirectory = dataDirectory;
  }

  @Override
  public synchronized void kill() {
    ProcessHandle postmaster =
        postmaster()
            .orElseThrow(() -> new DevStackException("no running PostgreSQL in " + dataDirectory));
    pgCtl = binaries(postmaster).resolve("pg_ctl");
    // Backends are listed first: once the postmaster is gone they exit on their own, and a
    // backend that outlived it would keep the old shared memory and block the next start. The
    // postmaster is stopped (SIGSTOP) before the listing, so that no backend it forks in between
    // escapes the list ("pre-existing shared memory block is still in use" on the restart).
    freeze(postmaster);
    List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
    postmaster.destroyForcibly();
    all.forEach(ProcessHandle::destroyForcibly);
    all.add(postmaster);
    Instant deadline = Instant.now().plus(STOP_TIMEOUT);
    while (all.stream().anyMatch(ProcessHandle::isAlive)) {
      if (Instant.now().isAfter(deadline)) {
        throw new DevStackException(
            "PostgreSQL processes still alive " + STOP_TIMEOUT + " after SIGKILL");
      }
      pause();
    }
  }

  @Override
  public synchronized void start() {
    if (pgCtl == null) {
      throw new IllegalStateException("start() restarts a server kill() stopped; none was killed");
    }
    PgCtl.run(
        pgCtl,
        List.of(
            "restart",
            "-D",
            dataDirectory.toString(),
            "-m",
            "immediate",
            "-w",
            "-t",
            String.valueOf(START_TIMEOUT_SECONDS)),
        dataDirectory.resolveSibling(dataDirectory.getFileName() + "-restarts.log"),
        dataDirectory.toString());
  }

  private static void freeze(ProcessHandle postmaster) {
    try {
      Process stop =
          new ProcessBuilder("kill", "-STOP", String.valueOf(postmaster.pid()))
              .redirectErrorStream(true)
              .start();
      if (stop.waitFor() != 0) {
        throw new DevStackException("cannot stop postmaster " + postmaster.pid() + " to kill it");
      }
    } catch (IOException e) {
      throw new DevStackException("cannot run kill -STOP", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevStackException("interrupted stopping postmaster " + postmaster.pid(), e);
    }
  }

  /** The directory of the binaries that run the server on {@code dataDirectory}. */
  static Path binaries(Path dataDirectory) {
    return binaries(
        new EmbeddedPostgresProcesses(dataDirectory)
            .postmaster()
            .orElseThrow(() -> new DevStackException("no running PostgreSQL in " + dataDirectory)));
  }

  private static Path binaries(ProcessHandle postmaster) {
    return postmaster
        .info()
        .command()
        .map(command -> Path.of(command).getParent())
        .orElseThrow(
            () ->
                new DevStackException("cannot tell the binary of postmaster " + postmaster.pid()));
  }

  Path dataDirectory() {
    return dataDirectory;
  }

  /**
   * The postmaster running on {@code dataDirectory}; empty while none does (crashed, stopped, not
   * yet started), where {@link #postmaster()} refuses.
   */
  static Optional<ProcessHandle> runningPostmaster(Path dataDirectory) {
    try {
      String firstLine = Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0);
      return ProcessHandle.of(Long.parseLong(firstLine.trim())).filter(ProcessHandle::isAlive);
    } catch (IOException | RuntimeException notRunning) {
      return Optional.empty();
    }
  }

  private Optional<ProcessHandle> postmaster() {
    try {
      String firstLine = Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0);
      return ProcessHandle.of(Long.parseLong(firstLine.trim())).filter(ProcessHandle::isAlive);
    } catch (IOException | RuntimeException e) {
      throw new DevStackException("cannot read the postmaster's PID in " + dataDirectory, e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevStackException("interrupted while PostgreSQL was stopping", e);
    }
  }
}
