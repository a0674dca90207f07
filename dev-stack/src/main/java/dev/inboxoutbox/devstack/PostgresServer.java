package dev.inboxoutbox.devstack;

import java.sql.SQLException;
import java.util.List;
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

  /**
   * The postmasters of the servers this JVM started that run now (the primary and the standby of a
   * replicated pair), so that a chaos run can account for their CPU. Empty for a server somebody
   * else runs.
   */
  default List<ProcessHandle> postmasters() {
    return List.of();
  }

  /**
   * The primary and its streaming standby, where this JVM runs both ({@link
   * ReplicatedPostgresServer}), so that a test or a chaos run can fail over. Empty for a single
   * server.
   */
  default Optional<Replication> replication() {
    return Optional.empty();
  }

  @Override
  void close();

  /** A primary with a streaming standby behind one address that follows the primary. */
  interface Replication {

    /**
     * Fails over as a host failure forces it: SIGKILL of the primary, promotion of the standby, the
     * address moved to it (open connections reset), then the old primary rebuilt from the new one
     * and started as its standby. Returns once the new standby streams.
     */
    void failover();

    /**
     * Whether commits wait until the standby has flushed them ({@code synchronous_standby_names}):
     * with it, a commit acknowledged to a client survives a failover; without it, the last commits
     * before the primary died may be missing on the promoted standby.
     */
    void synchronousStandby(boolean synchronous);

    /**
     * Holds every byte between the standby and the primary (a black hole), so that the standby
     * falls behind; {@code false} lets the backlog through again. A failover ends the hold: what
     * the old primary sent into it is dropped with the link.
     */
    void holdReplication(boolean held);

    /**
     * Whether the standby holds a synchronized copy of the primary's logical slot {@code slot} that
     * survives a promotion: a failover slot whose reader confirmed what it read.
     */
    boolean standbySlotSynced(String slot) throws SQLException;

    /**
     * Whether every failover slot of the primary has a copy on the standby that survives a
     * promotion. Until then a failover loses the slots without one: a new slot's first seconds, or
     * while its reader has not yet confirmed past what the standby can keep.
     */
    boolean failoverReady() throws SQLException;

    /**
     * Wakes the standby's slot sync worker, which otherwise looks at the primary's failover slots
     * after naps that double up to 30 s while no slot changes: it looks at once. For a caller
     * waiting for {@link #failoverReady()}, whose copies the worker creates and makes last.
     */
    void wakeSlotSync() throws SQLException;

    /** Where the primary and the standby are now, for logs and failure messages. */
    String describe();
  }

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
