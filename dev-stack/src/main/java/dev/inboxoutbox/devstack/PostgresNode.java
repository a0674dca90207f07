package dev.inboxoutbox.devstack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * One PostgreSQL server of a replicated pair: a data directory, a port and the binaries that run
 * it. Started and stopped with {@link PgCtl}; killed as {@link EmbeddedPostgresProcesses} kills the
 * single embedded server.
 */
final class PostgresNode {

  private static final int START_TIMEOUT_SECONDS = 120;

  private final String name;
  private final Path binaries;
  private final Path dataDirectory;
  private final int port;

  PostgresNode(String name, Path binaries, Path dataDirectory, int port) {
    this.name = name;
    this.binaries = binaries;
    this.dataDirectory = dataDirectory;
    this.port = port;
  }

  String name() {
    return name;
  }

  Path dataDirectory() {
    return dataDirectory;
  }

  int port() {
    return port;
  }

  /** The physical slot a primary keeps for this node while it is the standby. */
  String standbySlot() {
    return "iox_standby_" + name;
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl("postgres"), "postgres", "");
  }

  /** Starts the server on its data directory with {@code settings}, waiting until it accepts. */
  void start(Map<String, String> settings) {
    StringBuilder options = new StringBuilder("-p " + port);
    settings.forEach((key, value) -> options.append(" -c ").append(key).append('=').append(value));
    pgCtl(
        List.of(
            "start",
            "-D",
            dataDirectory.toString(),
            "-w",
            "-t",
            String.valueOf(START_TIMEOUT_SECONDS),
            "-l",
            dataDirectory.resolveSibling(dataDirectory.getFileName() + ".log").toString(),
            "-o",
            options.toString()));
  }

  /** SIGKILL of the postmaster and every backend, as a host failure stops them. */
  void kill() {
    new EmbeddedPostgresProcesses(dataDirectory).kill();
  }

  /** Whether a postmaster runs on its data directory (or died without removing its pid file). */
  boolean running() {
    return Files.exists(dataDirectory.resolve("postmaster.pid"));
  }

  /** A fast shutdown, for closing the pair; nothing when the server is not running. */
  void stop() {
    if (running()) {
      pgCtl(List.of("stop", "-D", dataDirectory.toString(), "-m", "immediate", "-w"));
    }
  }

  private void pgCtl(List<String> arguments) {
    PgCtl.run(
        binaries.resolve("pg_ctl"),
        arguments,
        dataDirectory.resolveSibling(dataDirectory.getFileName() + "-pg_ctl.log"),
        name);
  }

  /** Its name and where it listens, for logs. */
  String address() {
    return name + " at 127.0.0.1:" + port;
  }

  @Override
  public String toString() {
    return name + " (127.0.0.1:" + port + ", " + dataDirectory + ")";
  }
}
