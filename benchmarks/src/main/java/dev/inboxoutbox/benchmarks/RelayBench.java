package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.PublishedEvent;
import dev.inboxoutbox.relay.RelayListener;
import dev.inboxoutbox.relay.RelayListener.BatchTimings;
import dev.inboxoutbox.relay.RelaySettings;
import dev.inboxoutbox.relay.RelayState;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The relay's commit-to-consumer latency at a fixed rate, split at the point where Kafka
 * acknowledged the batch, and its throughput draining a burst against a plain KafkaProducer sending
 * the same records to the same broker and against a Kafka Connect worker running the outbox
 * connector ({@link ConnectArm}). One relay and one worker serve every repeat; figures are medians.
 */
final class RelayBench {

  private static final String AGGREGATE_TYPE = "bench";
  static final int BURST_TRANSACTION = 500;

  /**
   * One connection commits ~1,200-2,000 single-event transactions per second here: several are
   * needed to offer 2,000 events/s.
   */
  static final int WRITERS = 4;

  private final BenchFigures figures;
  private final Database db;
  private final String bootstrap;
  private final int events;
  private final int rate;
  private final Duration pollInterval;
  private final int repeat;
  private final Optional<ConnectArm.Target> connectTarget;
  private final PrintStream out;
  private final RelayStages stages = new RelayStages();
  private OutboxRelay relay;
  private ConnectArm connect;
  private String prefix;

  /** Event id to System.nanoTime() of each step, filled by the writer, relay and reader. */
  private final Map<String, Long> committed = new ConcurrentHashMap<>();

  private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
  private final Map<String, Long> consumed = new ConcurrentHashMap<>();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong batchedEvents = new AtomicLong();
  private final AtomicLong firstHandover = new AtomicLong(Long.MAX_VALUE);

  RelayBench(
      BenchFigures figures,
      Database db,
      String bootstrap,
      int events,
      int rate,
      Duration pollInterval,
      int repeat,
      Optional<ConnectArm.Target> connectTarget,
      PrintStream out) {
    this.figures = figures;
    this.db = db;
    this.bootstrap = bootstrap;
    this.events = events;
    this.rate = rate;
    this.pollInterval = pollInterval;
    this.repeat = repeat;
    this.connectTarget = connectTarget;
    this.out = out;
  }

  /** One run's figures. */
  record Run(
      double readP50,
      double readP99,
      double p50,
      double p99,
      double max,
      double ackP50,
      double ackP99,
      double writtenPerSecond,
      double eventsPerBatch,
      double burstWrittenPerSecond,
      double burstEventsPerBatch,
      double burstReadMax,
      double relayPerSecond,
      double backlogPerSecond,
      double unstampedBacklogPerSecond,
      double connectBacklogPerSecond,
      double plainPerSecond) {}

  void run() throws Exception {
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    long jvmCpuAtStart = jvmCpuNanos();
    prefix = "bench" + UUID.randomUUID().toString().substring(0, 6);
    String topic = prefix + "." + AGGREGATE_TYPE;
    List<Run> runs = new ArrayList<>();
    try (RelayTopicReader reader = new RelayTopicReader(bootstrap, topic, consumed)) {
      startRelay(true);
      reader.start();
      warmUp();
      startConnect();
      // Run 0 warms the JIT up on every path (the first seconds of a relay lag by hundreds of
      // ms while C2 compiles the decoder); it is printed but not counted.
      for (int i = 0; i <= repeat; i++) {
        out.printf("relay run %d/%d%s%n", i, repeat, i == 0 ? " (warm-up, not counted)" : "");
        if (i == 0) {
          warmUpConnect();
        }
        Run run = once(topic);
        if (i > 0) {
          runs.add(run);
        }
        out.printf(
            "relay run %d/%d: %.0f events/s written, commit-to-consumer p50 %.0f ms, p99 %.0f ms,"
                + " max %.0f ms (commit-to-ack p50 %.0f ms, p99 %.0f ms), %.1f events per batch;"
                + " burst %.0f events/s, backlog %.0f events/s (%.0f not stamped) vs Kafka"
                + " Connect %s, vs plain producer %.0f events/s%n",
            i,
            repeat,
            run.writtenPerSecond(),
            run.p50(),
            run.p99(),
            run.max(),
            run.ackP50(),
            run.ackP99(),
            run.eventsPerBatch(),
            run.relayPerSecond(),
            run.backlogPerSecond(),
            run.unstampedBacklogPerSecond(),
            Double.isNaN(run.connectBacklogPerSecond())
                ? "not run"
                : "%.0f events/s".formatted(run.connectBacklogPerSecond()),
            run.plainPerSecond());
      }
    } finally {
      try {
        if (relay != null) {
          relay.close();
        }
      } finally {
        if (connect != null) {
          connect.close();
        }
      }
    }
    new RelayBenchReport(figures, out, pollInterval, events, rate).print(runs);
    // The machine is shared: the JVM's own share tells how much of the busy time was others'.
    MachineLoad.since(cpuAtStart)
        .ifPresent(
            load ->
                out.printf(
                    "%s; this JVM (broker, relay, bench) %.0f%n",
                    load.describe(), (jvmCpuNanos() - jvmCpuAtStart) / 1e9));
  }

  private static long jvmCpuNanos() {
    return ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
        .getProcessCpuTime();
  }

  /**
   * Starts the Kafka Connect arm, if asked for; a worker or connector that does not come up is
   * reported in one line and in the notes, and the relay's other figures are still measured.
   */
  private void startConnect() throws Exception {
    if (connectTarget.isEmpty()) {
      return;
    }
    out.println("relay: starting a Kafka Connect worker with the outbox connector");
    try {
      connect =
          ConnectArm.start(
              connectTarget.get().sources(),
              connectTarget.get().db(),
              bootstrap,
              prefix,
              AGGREGATE_TYPE,
              pollInterval);
    } catch (ConnectArm.Unavailable e) {
      String line =
          "relay vs Kafka Connect: not measured, "
              + e.getMessage()
              + "; --skip-connect leaves the arm out";
      out.println(line);
      figures.note(line);
    }
  }

  /**
   * A run has the relay handle four times the events the worker drains (at rate, burst, two
   * backlogs): before the first run the worker drains three times the backlog more, so that both
   * JVMs' compilers have seen as many events when the counted runs begin.
   */
  private void warmUpConnect() throws Exception {
    if (connect != null) {
      out.printf(
          "relay: Kafka Connect warm-up drain of %d events, %.0f events/s (not counted)%n",
          3 * events, connect.drain(3 * events));
    }
  }

  private void startRelay(boolean markPublished) throws Exception {
    relay =
        OutboxRelay.builder(
                RelaySettings.builder()
                    .jdbcUrl(db.jdbcUrl())
                    .user(db.username())
                    .password(db.password())
                    .kafkaBootstrapServers(bootstrap)
                    .topicReplacement(prefix + ".${routedByValue}")
                    .pollInterval(pollInterval)
                    .markPublished(markPublished)
                    .build())
            .listener(
                new RelayListener() {
                  @Override
                  public void published(List<PublishedEvent> events) {
                    acknowledged(events);
                  }

                  @Override
                  public void handled(BatchTimings timings) {
                    handedOver(timings);
                  }
                })
            .build()
            .start();
    awaitRunning(relay);
  }

  private Run once(String topic) throws Exception {
    clear();
    List<Long> behindSource;
    double written;
    long rateStarted = System.nanoTime();
    try (ConnectorLag lag = new ConnectorLag()) {
      written = writeAtRate();
      awaitConsumed(events);
      behindSource = lag.samples();
    }
    stages.print(out, "at rate", millis(System.nanoTime() - rateStarted));
    List<Long> total = new ArrayList<>();
    List<Long> toAck = new ArrayList<>();
    committed.forEach(
        (id, at) -> {
          total.add(consumed.get(id) - at);
          toAck.add(acknowledged.get(id) - at);
        });
    Collections.sort(total);
    Collections.sort(toAck);
    double perBatch = (double) batchedEvents.get() / Math.max(1, batches.get());

    clear();
    long burstStarted;
    double burstWritten;
    List<Long> burstBehind;
    try (ConnectorLag lag = new ConnectorLag()) {
      burstStarted = System.nanoTime();
      writeBurst();
      burstWritten = events / seconds(System.nanoTime() - burstStarted);
      awaitConsumed(events);
      burstBehind = lag.samples();
    }
    long lastAck = Collections.max(acknowledged.values());
    stages.print(out, "burst, relay running", millis(lastAck - burstStarted));
    double burstPerBatch = (double) batchedEvents.get() / Math.max(1, batches.get());
    double relayPerSecond = events / seconds(lastAck - burstStarted);
    double unstampedBacklogPerSecond = drainBacklog(false);
    double backlogPerSecond = drainBacklog(true);
    double connectBacklogPerSecond = connect == null ? Double.NaN : connect.drain(events);
    double plainPerSecond = plainProducer(topic);
    return new Run(
        behindSource.isEmpty() ? Double.NaN : percentile(behindSource, 0.50),
        behindSource.isEmpty() ? Double.NaN : percentile(behindSource, 0.99),
        millis(percentile(total, 0.50)),
        millis(percentile(total, 0.99)),
        millis(total.get(total.size() - 1)),
        millis(percentile(toAck, 0.50)),
        millis(percentile(toAck, 0.99)),
        written,
        perBatch,
        burstWritten,
        burstPerBatch,
        burstBehind.isEmpty() ? Double.NaN : burstBehind.get(burstBehind.size() - 1),
        relayPerSecond,
        backlogPerSecond,
        unstampedBacklogPerSecond,
        connectBacklogPerSecond,
        plainPerSecond);
  }

  /**
   * The relay's own throughput, not the writer's: the events are committed while no relay runs, and
   * the clock runs from the first batch handed over to the last acknowledgement. A relay that reads
   * while the writer still commits could go no faster than the writer. Without {@code
   * markPublished} the relay skips stamping {@code published_at}, which shows that stamp's share.
   */
  private double drainBacklog(boolean markPublished) throws Exception {
    relay.close();
    relay = null;
    clear();
    writeBurst();
    startRelay(markPublished);
    awaitConsumed(events);
    long lastAck = Collections.max(acknowledged.values());
    long first = firstHandover.get();
    stages.print(
        out,
        markPublished ? "backlog drain" : "backlog drain, published_at not stamped",
        millis(lastAck - first));
    return events / seconds(lastAck - first);
  }

  /**
   * The dev stack runs with synchronous_commit=off, under which a commit reaches the replication
   * slot only when the WAL writer next flushes (wal_writer_delay, 200 ms): the relay would measure
   * that delay. The writer commits as PostgreSQL does by default; with the dev stack's fsync=off
   * the flush is a write() only.
   */
  static void writer(Connection tx) throws SQLException {
    try (Statement statement = tx.createStatement()) {
      statement.execute("SET synchronous_commit = on");
    }
    tx.setAutoCommit(false);
  }

  /** Lets the relay's first send create the topic and the reader find it before any clock runs. */
  private void warmUp() throws SQLException, InterruptedException {
    try (Connection tx = db.connect()) {
      writer(tx);
      List<OutboxEvent> batch = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        batch.add(OutboxEvent.of(AGGREGATE_TYPE, "warm-up", "Tick", "{}"));
      }
      Outbox.builder().build().appendAll(tx, batch);
      tx.commit();
    }
    awaitConsumed(20);
  }

  /**
   * One transaction per event, spread over {@link #WRITERS} connections each paced to its share of
   * {@code rate}; returns the rate made, which the table prints beside the rate asked for.
   */
  private double writeAtRate() throws Exception {
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<Void>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        writers.add(pool.submit(() -> writeShare(writer, started)));
      }
      for (Future<Void> writer : writers) {
        writer.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return events / seconds(System.nanoTime() - started);
  }

  /** Events writer, writer + WRITERS, ...: event i is due at i / rate seconds after the start. */
  private Void writeShare(int writer, long started) throws SQLException, InterruptedException {
    Outbox outbox = Outbox.builder().build();
    try (Connection tx = db.connect()) {
      writer(tx);
      for (int i = writer; i < events; i += WRITERS) {
        long due = started + Duration.ofSeconds(1).toNanos() * i / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        OutboxEvent event = OutboxEvent.of(AGGREGATE_TYPE, "a-" + (i % 20), "Tick", "{}");
        outbox.append(tx, event);
        tx.commit();
        committed.put(event.id().toString(), System.nanoTime());
      }
    }
    return null;
  }

  /** The same number of events as fast as one connection inserts them. */
  private void writeBurst() throws SQLException {
    Outbox outbox = Outbox.builder().build();
    try (Connection tx = db.connect()) {
      writer(tx);
      List<OutboxEvent> batch = new ArrayList<>(BURST_TRANSACTION);
      for (int i = 0; i < events; i++) {
        batch.add(OutboxEvent.of(AGGREGATE_TYPE, "a-" + (i % 20), "Tick", "{}"));
        if (batch.size() == BURST_TRANSACTION || i == events - 1) {
          outbox.appendAll(tx, batch);
          tx.commit();
          batch.forEach(event -> committed.put(event.id().toString(), System.nanoTime()));
          batch.clear();
        }
      }
    }
  }

  /**
   * The same records the relay sends (topic, key, value, the relay's headers) with the relay's
   * producer settings: idempotent, acks=all, linger.ms=5.
   */
  private double plainProducer(String topic) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "enable.idempotence",
                "true",
                "acks",
                "all",
                "linger.ms",
                "5"),
            new StringSerializer(),
            new ByteArraySerializer())) {
      // Creates the topic before the clock starts, as the relay's topic exists by then.
      producer.partitionsFor(topic + ".plain");
      long started = System.nanoTime();
      for (int i = 0; i < events; i++) {
        String id = UUID.randomUUID().toString();
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic + ".plain", "a-" + (i % 20), "{}".getBytes());
        record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
        record.headers().add("type", "Tick".getBytes(StandardCharsets.UTF_8));
        record.headers().add("Idempotency-Key", id.getBytes(StandardCharsets.UTF_8));
        producer.send(record);
      }
      producer.flush();
      return events / seconds(System.nanoTime() - started);
    }
  }

  private void acknowledged(List<PublishedEvent> published) {
    long now = System.nanoTime();
    batches.incrementAndGet();
    batchedEvents.addAndGet(published.size());
    published.forEach(event -> acknowledged.put(event.eventId(), now));
  }

  private void handedOver(BatchTimings timings) {
    stages.add(timings);
    if (timings.events() > 0) {
      long onTheRelay =
          timings.send().toNanos()
              + timings.acknowledge().toNanos()
              + timings.stamp().toNanos()
              + timings.listeners().toNanos()
              + timings.markProcessed().toNanos();
      long handedOverAt = System.nanoTime() - onTheRelay;
      firstHandover.accumulateAndGet(handedOverAt, Math::min);
    }
  }

  private void clear() {
    stages.reset();
    firstHandover.set(Long.MAX_VALUE);
    committed.clear();
    acknowledged.clear();
    consumed.clear();
    batches.set(0);
    batchedEvents.set(0);
  }

  private void awaitConsumed(int target) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (consumed.size() < target || acknowledged.size() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "relay bench stalled: "
                + acknowledged.size()
                + " acknowledged, "
                + consumed.size()
                + " consumed of "
                + target);
      }
      Thread.sleep(5);
    }
  }

  private void awaitRunning(OutboxRelay relay) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (relay.state() != RelayState.RUNNING || activeSlots() == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("relay did not start: " + relay.status());
      }
      Thread.sleep(100);
    }
  }

  private long activeSlots() throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT count(*) FROM pg_replication_slots"
                    + " WHERE database = current_database() AND active")) {
      row.next();
      return row.getLong(1);
    }
  }

  private static long percentile(List<Long> sorted, double p) {
    return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())));
  }

  private static double millis(long nanos) {
    return nanos / 1e6;
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
