package dev.inboxoutbox.devstack;

import java.util.Optional;

/** A running PostgreSQL server that hands out fresh databases. */
public interface PostgresServer extends AutoCloseable {

  /** Creates an empty database with a unique name; closing it drops it. */
  Database createDatabase();

  /** Creates (or reuses, when it exists) a database with the given name, which survives close. */
  Database database(String name);

  /** Where the server is, for logs: "embedded PostgreSQL on port 5432", "external ...". */
  String description();

  /**
   * The server's own processes, where this JVM started them (the embedded server), so that a chaos
   * run can crash the server and start it again. Empty for a server somebody else runs.
   */
  default Optional<Processes> processes() {
    return Optional.empty();
  }

  @Override
  void close();

  /** Crash and start of a server this JVM owns. */
  interface Processes {

    /**
     * SIGKILL of the postmaster and every backend: no shutdown checkpoint, no goodbye to clients.
     * The next {@link #start()} recovers from the write-ahead log, as after a power cut of the
     * server's processes (the operating system's page cache survives, as it does when only the
     * processes die).
     */
    void kill();

    /**
     * Starts the server again on the same data directory, port and settings; returns once it
     * accepts connections.
     */
    void start();
  }
}
