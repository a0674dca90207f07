package dev.inboxoutbox.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * PostgreSQL from zonky's binaries, started in a fresh data directory with logical decoding on
 * (Debezium's pgoutput needs {@code wal_level=logical}). Works as root: zonky drops privileges.
 */
final class EmbeddedPostgresServer implements PostgresServer {

  static final Map<String, String> SERVER_SETTINGS =
      Map.of(
          "wal_level", "logical",
          "max_replication_slots", "20",
          "max_wal_senders", "20",
          "max_connections", "300",
          // Throwaway data: durability on every commit would only slow tests down.
          "fsync", "off",
          "synchronous_commit", "off",
          "full_page_writes", "off");

  private final EmbeddedPostgres postgres;
  private final AdminDatabases databases;
  private final EmbeddedPostgresProcesses processes;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDirectory) {
    this.postgres = postgres;
    this.processes = new EmbeddedPostgresProcesses(dataDirectory);
    this.databases =
        new AdminDatabases(
            postgres.getPostgresDatabase(),
            name -> postgres.getJdbcUrl("postgres", name),
            "postgres",
            "");
  }

  static EmbeddedPostgresServer start(DevStackSettings settings) {
    try {
      Path workDir = Files.createDirectories(settings.workDir());
      // Named here, not by zonky, so that a crashed server can be started again on it.
      Path dataDirectory = workDir.resolve("data-" + UUID.randomUUID());
      Map<String, String> serverSettings = new LinkedHashMap<>(SERVER_SETTINGS);
      settings
          .postgresSharedBuffers()
          .ifPresent(size -> serverSettings.put("shared_buffers", size));
      return new EmbeddedPostgresServer(
          embedded(workDir, dataDirectory, settings.postgresPort(), serverSettings), dataDirectory);
    } catch (IOException e) {
      throw new DevStackException(
          "cannot start embedded PostgreSQL under " + settings.workDir(), e);
    }
  }

  /**
   * zonky's server on {@code dataDirectory} with {@code serverSettings} ({@link #SERVER_SETTINGS}
   * and what the dev stack's settings add); {@code port} 0 takes a free one below the ephemeral
   * range ({@link FreePorts}). zonky's own pick, a {@code bind(0)} port, could be taken before the
   * server binds it, as the in-JVM broker's listeners take theirs while PostgreSQL starts.
   */
  static EmbeddedPostgres embedded(
      Path workDir, Path dataDirectory, int port, Map<String, String> serverSettings)
      throws IOException {
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setOverrideWorkingDirectory(workDir.toFile())
            .setDataDirectory(dataDirectory.toFile())
            .setCleanDataDirectory(true)
            .setPGStartupWait(Duration.ofSeconds(60))
            .setPort(port > 0 ? port : FreePorts.belowEphemeralRange())
            // zonky checks readiness by logging in: whatever else listens on the port would hold
            // that login, and the start, for good.
            .setConnectConfig("loginTimeout", "20");
    serverSettings.forEach(builder::setServerConfig);
    return builder.start();
  }

  @Override
  public Database createDatabase() {
    return databases.createUnique();
  }

  @Override
  public Database database(String name) {
    return databases.createOrReuse(name);
  }

  @Override
  public Optional<Processes> processes() {
    return Optional.of(processes);
  }

  @Override
  public List<ProcessHandle> postmasters() {
    return EmbeddedPostgresProcesses.runningPostmaster(processes.dataDirectory()).stream().toList();
  }

  @Override
  public String description() {
    return "embedded PostgreSQL on 127.0.0.1:" + postgres.getPort();
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded PostgreSQL", e);
    }
  }
}
