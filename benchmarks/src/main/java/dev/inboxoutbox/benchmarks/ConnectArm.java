package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.OperatorError;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.connect.BuiltConnector;
import dev.inboxoutbox.devstack.connect.ConnectRest;
import dev.inboxoutbox.devstack.connect.ConnectWorker;
import dev.inboxoutbox.devstack.connect.OutboxConnectorFiles;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The relay's anchor: one Kafka Connect worker in distributed mode (a child JVM on a stock worker's
 * jars, with the JVM options {@code bin/connect-distributed.sh} gives it) running the project's
 * outbox connector from its plugin archive, configured from the checked-in files of docs/relay, and
 * draining the same backlog as the embedded relay from a database of its own on the same PostgreSQL
 * server to the same broker.
 *
 * <p>A drain writes the backlog while the connector is stopped ({@code PUT .../stop}: tasks shut
 * down, offsets stored), resumes it and times the first to the last backlog record by the broker's
 * append time (the topic has {@code message.timestamp.type=LogAppendTime}), so neither the task's
 * start nor a consumer's fetch is part of it.
 */
final class ConnectArm implements AutoCloseable {

  static final String CONNECTOR = "iox-outbox-bench";

  /** As {@code bin/connect-distributed.sh} starts a worker (KAFKA_HEAP_OPTS, _PERFORMANCE_OPTS). */
  static final List<String> WORKER_JVM_OPTIONS =
      List.of(
          "-Xms256M",
          "-Xmx2G",
          "-server",
          "-XX:+UseG1GC",
          "-XX:MaxGCPauseMillis=20",
          "-XX:InitiatingHeapOccupancyPercent=35",
          "-XX:+ExplicitGCInvokesConcurrent",
          "-Djava.awt.headless=true");

  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Duration DRAIN_PATIENCE = Duration.ofMinutes(2);
  private static final String BUILD = "./mvnw -B -q install -DskipTests";

  /** The directory {@code iox bench} takes as the repository: the current one or IOX_REPO_ROOT. */
  static Path repoRoot() {
    return Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", ".")).toAbsolutePath().normalize();
  }

  /**
   * What the arm takes from a build of the repository at {@code repoRoot}, or an {@link
   * OperatorError} naming the first file missing and what to do.
   */
  static BuiltConnector sources(Path repoRoot) {
    try {
      return BuiltConnector.in(repoRoot);
    } catch (BuiltConnector.NotBuilt e) {
      throw new OperatorError(
          "relay vs Kafka Connect: "
              + e.getMessage()
              + "; build the repository first ("
              + BUILD
              + "), run from its root or set IOX_REPO_ROOT, or leave the arm out with"
              + " --skip-connect");
    }
  }

  /** Where the arm runs: the build's files and a database of its own, schema migrated. */
  record Target(BuiltConnector sources, Database db) {}

  /** The worker or its connector did not come up; the message is one line. */
  static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  private final Database db;
  private final String aggregateType;
  private final ConnectWorker worker;
  private final RelayTopicReader reader;

  /** Backlog event id to the broker's append time of its record, in epoch milliseconds. */
  private final Map<String, Long> appended;

  private ConnectArm(
      Database db,
      String aggregateType,
      ConnectWorker worker,
      RelayTopicReader reader,
      Map<String, Long> appended) {
    this.db = db;
    this.aggregateType = aggregateType;
    this.worker = worker;
    this.reader = reader;
    this.appended = appended;
  }

  /**
   * Starts the worker, posts the connector, relays a few events (the topic exists, the reader has
   * found it, the offsets are stored) and stops the connector, ready for the first backlog.
   *
   * @param prefix the bench run's prefix: the worker's group and topics, the slot and the outbox
   *     topic are named from it
   * @param pollInterval Debezium's {@code poll.interval.ms}, the embedded relay's: the checked-in
   *     connector leaves Debezium's 500 ms, which a backlog's last partial batch would wait out
   */
  static ConnectArm start(
      BuiltConnector sources,
      Database db,
      String bootstrap,
      String prefix,
      String aggregateType,
      Duration pollInterval)
      throws Unavailable, InterruptedException, SQLException {
    String topic = prefix + "-connect." + aggregateType;
    String slot = prefix + "_connect";
    ConnectWorker worker;
    try {
      Path directory = Files.createTempDirectory("iox-bench-connect-");
      worker =
          new ConnectWorker(
              "bench-connect",
              sources.workerClassPathText(),
              WORKER_JVM_OPTIONS,
              sources.workerSettings(bootstrap, prefix + "-connect", directory),
              OutboxConnectorFiles.environment(db, slot),
              directory);
    } catch (IOException | UncheckedIOException e) {
      throw new Unavailable("cannot set the Connect worker up: " + firstLine(e.getMessage()));
    }
    createTopic(bootstrap, topic);
    Map<String, Long> appended = new ConcurrentHashMap<>();
    RelayTopicReader reader = RelayTopicReader.appendTimes(bootstrap, topic, appended);
    reader.start();
    ConnectArm arm = new ConnectArm(db, aggregateType, worker, reader, appended);
    boolean ready = false;
    try {
      worker.start();
      Map<String, String> connector = sources.connector();
      connector.put(
          "transforms.outbox.route.topic.replacement", prefix + "-connect.${routedByValue}");
      connector.put("poll.interval.ms", String.valueOf(pollInterval.toMillis()));
      worker.rest().putConnector(CONNECTOR, connector);
      worker.rest().awaitRunning(CONNECTOR, PATIENCE);
      arm.awaitAppended(arm.write(20));
      arm.stopConnector();
      ready = true;
      return arm;
    } catch (RuntimeException e) {
      String message = firstLine(e.getMessage());
      throw new Unavailable(
          message.contains(worker.log().toString())
              ? message
              : message + " (worker log: " + worker.log() + ")");
    } finally {
      if (!ready) {
        arm.close();
      }
    }
  }

  /**
   * One drain: writes {@code events} events (500 per transaction) while the connector is stopped,
   * resumes it, waits for every one on the topic, stops it again and answers events per second from
   * the first record appended to the last.
   */
  double drain(int events) throws Exception {
    Set<String> backlog = write(events);
    ConnectRest rest = worker.rest();
    rest.resume(CONNECTOR);
    rest.awaitRunning(CONNECTOR, PATIENCE);
    awaitAppended(backlog);
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (String id : backlog) {
      long at = appended.get(id);
      first = Math.min(first, at);
      last = Math.max(last, at);
    }
    stopConnector();
    // Append times are milliseconds: a drain within one millisecond counts as one.
    return events / (Math.max(1, last - first) / 1e3);
  }

  private void stopConnector() {
    worker.rest().stop(CONNECTOR);
    worker.rest().awaitStopped(CONNECTOR, PATIENCE);
  }

  private Set<String> write(int events) throws SQLException {
    appended.clear();
    Set<String> ids = ConcurrentHashMap.newKeySet();
    Outbox outbox = Outbox.builder().build();
    try (Connection tx = db.connect()) {
      RelayBench.writer(tx);
      List<OutboxEvent> batch = new ArrayList<>(RelayBench.BURST_TRANSACTION);
      for (int i = 0; i < events; i++) {
        batch.add(OutboxEvent.of(aggregateType, "a-" + (i % 20), "Tick", "{}"));
        if (batch.size() == RelayBench.BURST_TRANSACTION || i == events - 1) {
          outbox.appendAll(tx, batch);
          tx.commit();
          batch.forEach(event -> ids.add(event.id().toString()));
          batch.clear();
        }
      }
    }
    return ids;
  }

  private void awaitAppended(Set<String> ids) throws InterruptedException {
    long deadline = System.nanoTime() + DRAIN_PATIENCE.toNanos();
    while (!appended.keySet().containsAll(ids)) {
      reader.check();
      if (!worker.alive()) {
        throw new IllegalStateException("the Connect worker exited (log: " + worker.log() + ")");
      }
      if (System.nanoTime() > deadline) {
        long seen = ids.stream().filter(appended::containsKey).count();
        throw new IllegalStateException(
            "Kafka Connect stalled: "
                + seen
                + " of "
                + ids.size()
                + " events on the topic (log: "
                + worker.log()
                + ")");
      }
      Thread.sleep(5);
    }
  }

  /** SIGTERM to the worker; its log stays, its unpacked plugins go. */
  @Override
  public void close() {
    try {
      worker.stop();
    } finally {
      try {
        reader.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      deleteQuietly(worker.log().resolveSibling("plugins"));
    }
  }

  /**
   * The topic the connector writes to, created before it starts (as the worker would, with the
   * broker's partitions and replication) but with the broker's append time as each record's time.
   */
  private static void createTopic(String bootstrap, String topic) throws Unavailable {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, Optional.empty(), Optional.empty())
                      .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
          .all()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted creating " + topic);
    } catch (ExecutionException e) {
      throw new Unavailable("cannot create " + topic + ": " + firstLine(e.getCause().toString()));
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no message";
    }
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end);
  }

  private static void deleteQuietly(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    } catch (IOException e) {
      // A temporary directory: what is left of it does no harm.
    }
  }
}
