package dev.inboxoutbox.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Embedded PostgreSQL (17 or newer) as a primary and a streaming standby, behind one address that
 * follows the primary, as a virtual IP or a proxy does in front of Patroni or a managed database.
 * Clients get databases at that address; {@link #failover()} moves it.
 *
 * <p>The standby reaches the primary through a proxy of its own (the replication link), so that a
 * test can hold replication back and make the standby fall behind. Logical slots created with
 * {@code failover = true} are synchronized to the standby ({@code sync_replication_slots}), and the
 * primary sends logical changes only once the standby has the WAL they come from ({@code
 * synchronized_standby_slots}), so that no slot reader sees a change the promoted standby lacks.
 */
public final class ReplicatedPostgresServer implements PostgresServer, PostgresServer.Replication {

  private static final Duration STREAMING_PATIENCE = Duration.ofSeconds(60);

  /** Settings of both nodes on top of the single server's: standbys that can become primaries. */
  private static final Map<String, String> REPLICATION_SETTINGS =
      Map.of("hot_standby", "on", "hot_standby_feedback", "on", "sync_replication_slots", "on");

  private final EmbeddedPostgres first;
  private final PostgresNode[] nodes;
  private final Map<String, String> settings;
  private final TcpProxy address;
  private final TcpProxy replicationLink;
  private final AdminDatabases databases;
  private int primary;
  private boolean synchronous;

  private ReplicatedPostgresServer(
      EmbeddedPostgres first, PostgresNode[] nodes, TcpProxy address, TcpProxy replicationLink) {
    this.first = first;
    this.nodes = nodes;
    this.address = address;
    this.replicationLink = replicationLink;
    this.settings = new LinkedHashMap<>(EmbeddedPostgresServer.SERVER_SETTINGS);
    settings.putAll(REPLICATION_SETTINGS);
    PGSimpleDataSource admin = new PGSimpleDataSource();
    admin.setUrl(jdbcUrl("postgres"));
    admin.setUser("postgres");
    this.databases = new AdminDatabases(admin, this::jdbcUrl, "postgres", "");
  }

  /**
   * Starts the primary (zonky's server, initialised and started as the single embedded server is),
   * copies it into a standby, starts that, and waits until it streams. The address listens on
   * {@code settings.postgresPort()}, or on a free port.
   */
  public static ReplicatedPostgresServer start(DevStackSettings settings) {
    try {
      Path workDir = Files.createDirectories(settings.workDir());
      String run = UUID.randomUUID().toString().substring(0, 8);
      Path firstData = workDir.resolve("data-" + run + "-a");
      EmbeddedPostgres first =
          EmbeddedPostgresServer.embedded(
              workDir, firstData, 0, EmbeddedPostgresServer.SERVER_SETTINGS);
      Path binaries = EmbeddedPostgresProcesses.binaries(firstData);
      PostgresNode a = new PostgresNode("node_a", binaries, firstData, first.getPort());
      PostgresNode b =
          new PostgresNode(
              "node_b",
              binaries,
              workDir.resolve("data-" + run + "-b"),
              FreePorts.belowEphemeralRange());
      TcpProxy address =
          new TcpProxy(
              "postgres", new InetSocketAddress("127.0.0.1", a.port()), settings.postgresPort());
      TcpProxy replicationLink =
          new TcpProxy("postgres-replication", new InetSocketAddress("127.0.0.1", a.port()));
      ReplicatedPostgresServer server =
          new ReplicatedPostgresServer(first, new PostgresNode[] {a, b}, address, replicationLink);
      server.startStandby();
      return server;
    } catch (IOException e) {
      throw new DevStackException("cannot start a replicated embedded PostgreSQL", e);
    }
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
  public Optional<Replication> replication() {
    return Optional.of(this);
  }

  /** A crash of the primary, restarted on its own data; the standby reconnects to it. */
  @Override
  public Optional<Processes> processes() {
    return Optional.of(
        new Processes() {
          @Override
          public void kill() {
            synchronized (ReplicatedPostgresServer.this) {
              primary().kill();
            }
          }

          @Override
          public void start() {
            synchronized (ReplicatedPostgresServer.this) {
              primary().start(settings);
            }
          }
        });
  }

  @Override
  public List<ProcessHandle> postmasters() {
    return java.util.Arrays.stream(nodes)
        .flatMap(node -> EmbeddedPostgresProcesses.runningPostmaster(node.dataDirectory()).stream())
        .toList();
  }

  @Override
  public String description() {
    return "replicated embedded PostgreSQL at " + address.hostAndPort() + " (" + describe() + ")";
  }

  @Override
  public synchronized String describe() {
    return "primary " + primary().address() + ", standby " + standby().address();
  }

  @Override
  public synchronized void failover() {
    promoteStandby();
    rebuildStandby();
  }

  /**
   * The first half of {@link #failover()}: kills the primary and promotes the standby, which then
   * serves at the address without a standby of its own until {@link #rebuildStandby()}, as after a
   * failover whose old primary is still being rebuilt.
   */
  public synchronized void promoteStandby() {
    PostgresNode old = primary();
    PostgresNode promoted = standby();
    old.kill();
    // WAL the old primary sent into a held replication link died with it: none of it may reach
    // the standby after the primary is gone. The next standby gets a link of its own.
    replicationLink.resetConnections();
    replicationLink.closeBlackHole();
    try (Connection connection = promoted.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_promote(true, 60)");
      // It named the old primary's slot for its standby, which does not exist here: until the old
      // primary streams again, logical changes must not wait for it.
      statement.execute("ALTER SYSTEM RESET synchronized_standby_slots");
      // Commits wait for the old primary once it streams again as the standby (strict, as
      // Patroni's synchronous_mode_strict): none is acknowledged by this server alone.
      statement.execute(
          "ALTER SYSTEM SET synchronous_standby_names = '" + (synchronous ? old.name() : "") + "'");
      statement.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new DevStackException("cannot promote " + promoted, e);
    }
    primary = 1 - primary;
    address.redirect(new InetSocketAddress("127.0.0.1", promoted.port()));
    replicationLink.redirect(new InetSocketAddress("127.0.0.1", promoted.port()));
  }

  /** The second half of {@link #failover()}: the old primary rebuilt as the new one's standby. */
  public synchronized void rebuildStandby() {
    startStandby();
  }

  @Override
  public synchronized void synchronousStandby(boolean synchronous) {
    this.synchronous = synchronous;
    alterPrimary("synchronous_standby_names", synchronous ? standby().name() : "");
    awaitOnPrimary(
        "SELECT count(*) FROM pg_stat_replication WHERE application_name = ? AND sync_state = "
            + (synchronous ? "'sync'" : "'async'"),
        standby(),
        synchronous ? "a synchronous standby" : "an asynchronous standby");
  }

  @Override
  public void holdReplication(boolean held) {
    if (held) {
      replicationLink.openBlackHole();
    } else {
      replicationLink.closeBlackHole();
    }
  }

  /** A configuration reload signals the worker, which sets its latch and ends its nap. */
  @Override
  public synchronized void wakeSlotSync() throws SQLException {
    try (Connection connection = standby().connect();
        Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_reload_conf()");
    }
  }

  /** Where the standby has replayed the WAL up to (an LSN as a number). */
  synchronized long standbyReplayed() throws SQLException {
    try (Connection connection = standby().connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT pg_last_wal_replay_lsn() - '0/0'")) {
      row.next();
      return row.getLong(1);
    }
  }

  /**
   * Whether the standby holds a synchronized copy of the primary's logical slot {@code slot} that
   * survives a promotion (a copy still temporary is dropped by it).
   */
  @Override
  public synchronized boolean standbySlotSynced(String slot) throws SQLException {
    try (Connection connection = standby().connect();
        PreparedStatement synced =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_replication_slots"
                    + " WHERE slot_name = ? AND synced AND NOT temporary")) {
      synced.setString(1, slot);
      try (ResultSet row = synced.executeQuery()) {
        row.next();
        return row.getInt(1) > 0;
      }
    }
  }

  /**
   * Whether the primary's logical slot {@code slot} has moved past what the standby's copy of it
   * reserved, both {@code restart_lsn} and {@code catalog_xmin}: what the standby's slot sync
   * worker waits for before its copy lasts through a promotion. The worker looks at its own pace
   * (it naps up to 30 s, doubling while no slot changes), so {@link #standbySlotSynced(String)}
   * follows within one of its naps. True once the copy lasts; false while there is no copy.
   */
  public synchronized boolean primarySlotPastStandbyReservation(String slot) throws SQLException {
    String restartLsn;
    String catalogXmin;
    try (Connection connection = standby().connect();
        PreparedStatement copy =
            connection.prepareStatement(
                "SELECT temporary, restart_lsn::text, catalog_xmin::text"
                    + " FROM pg_replication_slots WHERE slot_name = ? AND synced")) {
      copy.setString(1, slot);
      try (ResultSet row = copy.executeQuery()) {
        if (!row.next()) {
          return false;
        }
        if (!row.getBoolean(1)) {
          return true;
        }
        restartLsn = row.getString(2);
        catalogXmin = row.getString(3);
      }
    }
    if (restartLsn == null || catalogXmin == null) {
      return false;
    }
    try (Connection connection = primary().connect();
        PreparedStatement passed =
            connection.prepareStatement(
                "SELECT restart_lsn >= ?::pg_lsn AND catalog_xmin::text::bigint >= ?"
                    + " FROM pg_replication_slots WHERE slot_name = ?")) {
      passed.setString(1, restartLsn);
      passed.setLong(2, Long.parseLong(catalogXmin));
      passed.setString(3, slot);
      try (ResultSet row = passed.executeQuery()) {
        return row.next() && row.getBoolean(1);
      }
    }
  }

  @Override
  public synchronized boolean failoverReady() throws SQLException {
    List<String> slots = new ArrayList<>();
    try (Connection connection = primary().connect();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT slot_name FROM pg_replication_slots"
                    + " WHERE slot_type = 'logical' AND failover")) {
      while (rows.next()) {
        slots.add(rows.getString(1));
      }
    }
    for (String slot : slots) {
      if (!standbySlotSynced(slot)) {
        return false;
      }
    }
    return true;
  }

  /** The JDBC URL of {@code database} at the address that follows the primary. */
  String jdbcUrl(String database) {
    return "jdbc:postgresql://" + address.hostAndPort() + "/" + database;
  }

  @Override
  public synchronized void close() {
    RuntimeException failure = null;
    for (AutoCloseable closeable : new AutoCloseable[] {address, replicationLink}) {
      try {
        closeable.close();
      } catch (Exception e) {
        failure = failure == null ? new DevStackException("cannot close the pair", e) : failure;
      }
    }
    if (nodes[0].running()) {
      // zonky stops the first node (whichever role it has now) and releases its lock; on a node
      // that is down, its pg_ctl fails and it logs the failure with a stack trace.
      try {
        first.close();
      } catch (IOException | RuntimeException e) {
        failure = failure == null ? new DevStackException("cannot stop " + nodes[0], e) : failure;
      }
    }
    for (PostgresNode node : nodes) {
      try {
        node.stop();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    for (PostgresNode node : nodes) {
      try {
        BaseBackup.deleteRecursively(node.dataDirectory());
      } catch (IOException e) {
        failure = failure == null ? new UncheckedIOException(e) : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private PostgresNode primary() {
    return nodes[primary];
  }

  private PostgresNode standby() {
    return nodes[1 - primary];
  }

  /** Copies the primary into the standby's directory, starts it and waits until it streams. */
  private void startStandby() {
    PostgresNode standby = standby();
    BaseBackup.copy(primary(), standby, replicationLink.port());
    standby.start(settings);
    awaitStreaming(standby);
    alterPrimary("synchronized_standby_slots", standby.standbySlot());
    alterPrimary("synchronous_standby_names", synchronous ? standby.name() : "");
  }

  private void awaitStreaming(PostgresNode standby) {
    awaitOnPrimary(
        "SELECT count(*) FROM pg_stat_replication"
            + " WHERE application_name = ? AND state = 'streaming'",
        standby,
        "streaming");
  }

  /** Waits until {@code countSql}, given the standby's name, counts a row on the primary. */
  private void awaitOnPrimary(String countSql, PostgresNode standby, String what) {
    Instant deadline = Instant.now().plus(STREAMING_PATIENCE);
    try (Connection connection = primary().connect();
        PreparedStatement count = connection.prepareStatement(countSql)) {
      count.setString(1, standby.name());
      while (true) {
        try (ResultSet row = count.executeQuery()) {
          row.next();
          if (row.getInt(1) > 0) {
            return;
          }
        }
        if (Instant.now().isAfter(deadline)) {
          throw new DevStackException(
              standby + " is not " + what + " of " + primary() + " after " + STREAMING_PATIENCE);
        }
        Thread.sleep(50);
      }
    } catch (SQLException e) {
      throw new DevStackException("cannot tell whether " + standby + " is " + what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevStackException("interrupted waiting for " + standby, e);
    }
  }

  private void alterPrimary(String setting, String value) {
    try (Connection connection = primary().connect();
        Statement statement = connection.createStatement()) {
      // ALTER SYSTEM takes no parameters; both are fixed names of this class.
      statement.execute("ALTER SYSTEM SET " + setting + " = '" + value + "'");
      statement.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new DevStackException("cannot set " + setting + " on " + primary(), e);
    }
  }
}
