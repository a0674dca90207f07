package dev.inboxoutbox.relay;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams outbox inserts to Kafka: a Debezium embedded engine (PostgreSQL connector, {@code
 * pgoutput}, the Outbox Event Router) feeding an idempotent KafkaProducer.
 *
 * <p><b>One active relay per database.</b> Every instance first takes a PostgreSQL session-level
 * advisory lock; the holder runs the engine, the others stand by and poll. When the holder dies its
 * session ends, the lock is released and a standby takes over within {@link
 * RelaySettings.Builder#standbyPollInterval(Duration)}. The replication slot itself also admits one
 * reader only.
 *
 * <p><b>At-least-once.</b> Offsets are marked only after Kafka acknowledged the batch and are
 * stored in PostgreSQL ({@code iox_relay_offsets}, debezium-storage-jdbc) every {@link
 * RelaySettings.Builder#offsetFlushInterval(Duration)}; the slot advances only then. A crash in
 * between republishes the tail, which the next consumer's inbox absorbs. A batch goes to Kafka only
 * once other sessions can see the transactions it came from ({@link CommitVisibility}).
 *
 * <p><b>Failures.</b> The engine's completion callback ends a run at once; the relay reports {@link
 * RelayState#FAILED}, waits (doubling from {@link
 * RelaySettings.Builder#restartBackoffMin(Duration)} up to {@link
 * RelaySettings.Builder#restartBackoffMax(Duration)}) and starts over, from taking the lock.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  private static final Duration HEALTHY_RUN = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final RelaySettings settings;
  private final RelayHeartbeat heartbeat;
  private final RelayListener listener;
  private final PublishTracing tracing;
  private final String instanceName = "iox-relay-" + UUID.randomUUID().toString().substring(0, 8);
  private final ExecutorService leaderThread;
  private final ExecutorService engineThread;
  private final AtomicReference<RelayState> state = new AtomicReference<>(RelayState.NEW);
  private final AtomicReference<Instant> stateSince = new AtomicReference<>(Instant.now());
  private final AtomicLong publishedEvents = new AtomicLong();
  private final AtomicLong restarts = new AtomicLong();
  private final AtomicReference<PublishedEvent> lastPublished = new AtomicReference<>();
  private final AtomicReference<String> lastError = new AtomicReference<>();
  private final AtomicReference<List<String>> failoverRisks = new AtomicReference<>(List.of());
  private final Object sleeper = new Object();
  private volatile boolean closing;
  private volatile CompletableFuture<Void> stopped = new CompletableFuture<>();

  private OutboxRelay(Builder builder) {
    this.settings = builder.settings;
    this.heartbeat = new RelayHeartbeat(settings);
    this.listener = builder.listener;
    this.tracing = builder.tracing;
    this.leaderThread = Executors.newSingleThreadExecutor(named("iox-relay-leader"));
    this.engineThread = Executors.newSingleThreadExecutor(named("iox-relay-engine"));
  }

  /** A relay of these settings; {@link Builder#build()} makes it, {@link #start()} runs it. */
  public static Builder builder(RelaySettings settings) {
    return new Builder(settings);
  }

  /** Starts competing for leadership in the background; returns at once. */
  public synchronized OutboxRelay start() {
    if (state.get() != RelayState.NEW) {
      throw new IllegalStateException("relay already started");
    }
    enter(RelayState.STANDBY);
    leaderThread.execute(this::lead);
    return this;
  }

  /** Names this instance's database sessions ({@code application_name}) and Kafka client. */
  String instanceName() {
    return instanceName;
  }

  public RelayState state() {
    return state.get();
  }

  public RelayStatus status() {
    return new RelayStatus(
        state.get(),
        publishedEvents.get(),
        Optional.ofNullable(lastPublished.get()),
        restarts.get(),
        Optional.ofNullable(lastError.get()),
        stateSince.get(),
        failoverRisks.get());
  }

  /** Measures the lag with a short-lived connection; works on standbys too. */
  public RelayLag lag() {
    try (Connection connection = connect()) {
      return LagQuery.measure(connection, settings.outboxTable(), settings.slotName());
    } catch (SQLException e) {
      throw new RelayException("measuring relay lag failed", e);
    }
  }

  /** Stops the engine (storing its offsets) and releases leadership; waits up to 30 s. */
  @Override
  public void close() {
    closing = true;
    synchronized (sleeper) {
      sleeper.notifyAll();
    }
    if (state.get() != RelayState.NEW) {
      try {
        stopped.get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        log.warn("relay did not stop cleanly within {}", STOP_TIMEOUT, e);
      }
    }
    leaderThread.shutdownNow();
    engineThread.shutdownNow();
    enter(RelayState.STOPPED);
  }

  private void lead() {
    Duration backoff = settings.timing().restartBackoffMin();
    try {
      while (!closing) {
        Instant runStarted = null;
        try (Connection lock = connect()) {
          enter(RelayState.STANDBY);
          while (!closing && !LeaderLock.tryAcquire(lock, settings.slotName())) {
            pause(settings.timing().standbyPollInterval());
          }
          if (closing) {
            break;
          }
          runStarted = Instant.now();
          log.info("relay took the leadership lock for slot {}", settings.slotName());
          runEngine(lock);
        } catch (Exception e) {
          if (closing) {
            break;
          }
          restarts.incrementAndGet();
          String reason = describe(e);
          lastError.set(reason);
          enter(RelayState.FAILED);
          if (runStarted != null
              && Duration.between(runStarted, Instant.now()).compareTo(HEALTHY_RUN) > 0) {
            backoff = settings.timing().restartBackoffMin();
          }
          log.warn("relay run failed; restarting in {}: {}", backoff, reason);
          for (Throwable alsoFailed : e.getSuppressed()) {
            log.info("while that run ended, also: {}", describe(alsoFailed));
          }
          pause(backoff);
          backoff = min(backoff.multipliedBy(2), settings.timing().restartBackoffMax());
        }
      }
    } finally {
      stopped.complete(null);
    }
  }

  /** Runs one engine until the relay closes (returns) or the run fails (throws). */
  private void runEngine(Connection lock) throws Exception {
    List<String> heartbeatProblems = heartbeat.problems(lock);
    if (!heartbeatProblems.isEmpty()) {
      log.warn(
          "the relay's heartbeat cannot move slot {} while the outbox is quiet, so the slot holds"
              + " all WAL written meanwhile; fix: {}",
          settings.slotName(),
          heartbeatProblems);
    }
    FailoverWatch failoverWatch = new FailoverWatch(settings.slotName(), this::failoverRisksFound);
    failoverWatch.checkWhenDue(lock);
    boolean slotExists = LeaderLock.slotExists(lock, settings.slotName());
    CompletableFuture<Void> engineDone = new CompletableFuture<>();
    try (KafkaProducer<String, byte[]> producer = newProducer();
        Connection session = settings.markPublished() ? stampingConnection() : connect()) {
      KafkaPublisher publisher =
          new KafkaPublisher(
              producer,
              settings.markPublished() ? session : null,
              settings.outboxTable(),
              new CommitVisibility(session),
              listener,
              this::acknowledged,
              tracing);
      DebeziumEngine<RecordChangeEvent<SourceRecord>> engine =
          DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
              .using(EngineConfiguration.of(settings, slotExists))
              .notifying(publisher)
              .using(
                  (success, message, error) -> {
                    if (success) {
                      engineDone.complete(null);
                    } else {
                      engineDone.completeExceptionally(
                          error != null ? error : new RelayException(message));
                    }
                  })
              .using(
                  new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void taskStarted() {
                      enter(RelayState.RUNNING);
                    }
                  })
              .build();
      engineThread.execute(engine);
      Exception noticed = null;
      try {
        awaitEngine(engineDone, lock, failoverWatch);
      } catch (Exception e) {
        noticed = e;
      }
      Optional<Exception> stopFailure = stopEngine(engine, engineDone);
      Optional<Exception> failure = firstFailure(engineDone, noticed);
      if (failure.isEmpty()) {
        stopFailure.ifPresent(
            e -> log.warn("the Debezium engine did not stop cleanly: {}", describe(e)));
        return;
      }
      stopFailure.ifPresent(failure.get()::addSuppressed);
      throw failure.get();
    }
  }

  private void failoverRisksFound(List<String> risks) {
    List<String> before = failoverRisks.getAndSet(risks);
    if (!risks.isEmpty()) {
      log.warn("a failover of the relay's database would cost events: {}", risks);
    } else if (!before.isEmpty()) {
      log.info("a failover of the relay's database no longer costs events");
    }
  }

  /**
   * Returns when the relay closes or the engine failed (its failure is in {@code engineDone});
   * throws when the leader lost its lock session or the engine stopped although nobody asked it to.
   */
  private void awaitEngine(
      CompletableFuture<Void> engineDone, Connection lock, FailoverWatch failoverWatch)
      throws Exception {
    Duration checkInterval = settings.timing().leadershipCheckInterval();
    long checkMillis = checkInterval.toMillis();
    while (true) {
      try {
        engineDone.get(checkMillis, TimeUnit.MILLISECONDS);
        if (closing) {
          return;
        }
        throw new RelayException("the Debezium engine stopped without being asked to");
      } catch (ExecutionException engineFailed) {
        return;
      } catch (TimeoutException stillRunning) {
        if (closing) {
          return;
        }
        if (!lock.isValid((int) Math.max(1, checkInterval.toSeconds()))) {
          throw new RelayException("lost the leadership lock session; stepping down");
        }
        failoverWatch.checkWhenDue(lock);
      }
    }
  }

  /**
   * The engine's own failure comes first when there is one: after a database crash the relay can
   * notice its lost lock session while the engine is still stopping on the failure that ended the
   * run (a batch it could not mark published, say). What the relay noticed is then suppressed.
   */
  private static Optional<Exception> firstFailure(
      CompletableFuture<Void> engineDone, Exception noticed) {
    Throwable engineFailure = engineDone.handle((ok, error) -> error).getNow(null);
    if (engineFailure == null) {
      return Optional.ofNullable(noticed);
    }
    Exception failure =
        engineFailure instanceof Exception e
            ? e
            : new RelayException("the Debezium engine failed", engineFailure);
    if (noticed != null) {
      failure.addSuppressed(noticed);
    }
    return Optional.of(failure);
  }

  /**
   * Stops the engine unless it stopped already, and waits for it; returns what went wrong while
   * stopping, which never replaces the failure that ended the run.
   */
  private Optional<Exception> stopEngine(
      DebeziumEngine<?> engine, CompletableFuture<Void> engineDone) {
    if (engineDone.isDone()) {
      return Optional.empty();
    }
    List<Exception> stopFailures = new ArrayList<>();
    try {
      engine.close();
    } catch (IOException | RuntimeException e) {
      // "Engine is already being shutting down": it is stopping on its own failure, which its
      // completion callback reports once it has stopped.
      stopFailures.add(e);
    }
    try {
      engineDone.handle((ok, error) -> null).get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      stopFailures.add(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopFailures.add(e);
    }
    if (stopFailures.isEmpty()) {
      return Optional.empty();
    }
    Exception first = stopFailures.get(0);
    stopFailures.subList(1, stopFailures.size()).forEach(first::addSuppressed);
    return Optional.of(first);
  }

  private void acknowledged(List<PublishedEvent> events) {
    publishedEvents.addAndGet(events.size());
    lastPublished.set(events.get(events.size() - 1));
  }

  private KafkaProducer<String, byte[]> newProducer() {
    return new KafkaProducer<>(
        producerProperties(settings, instanceName),
        new StringSerializer(),
        new ByteArraySerializer());
  }

  /** The relay producer's settings: the application's, then what per-key order rests on. */
  static Map<String, Object> producerProperties(RelaySettings settings, String clientId) {
    Map<String, Object> p = new HashMap<>(settings.producerProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafkaBootstrapServers());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    // Idempotence keeps per-partition order and drops the producer's own retry duplicates.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.putIfAbsent(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    p.putIfAbsent(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    return p;
  }

  /** Each batch's stamp is one transaction, committed once Kafka acknowledged the batch. */
  private Connection stampingConnection() throws SQLException {
    Connection connection = connect();
    try {
      connection.setAutoCommit(false);
      return connection;
    } catch (SQLException e) {
      try {
        connection.close();
      } catch (SQLException alsoFailed) {
        e.addSuppressed(alsoFailed);
      }
      throw e;
    }
  }

  private Connection connect() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", settings.address().user());
    p.setProperty("password", settings.address().password());
    p.setProperty("ApplicationName", instanceName);
    return DriverManager.getConnection(settings.address().jdbcUrl(), p);
  }

  private void enter(RelayState next) {
    if (state.getAndSet(next) != next) {
      stateSince.set(Instant.now());
    }
  }

  private void pause(Duration duration) {
    synchronized (sleeper) {
      if (closing) {
        return;
      }
      try {
        sleeper.wait(duration.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closing = true;
      }
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** One line naming what failed and its root cause, credentials masked. */
  private String describe(Throwable e) {
    return FailureReason.of(e, settings.address().password());
  }

  private static java.util.concurrent.ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Builds an {@link OutboxRelay}. */
  public static final class Builder {
    private final RelaySettings settings;
    private RelayListener listener = RelayListener.NONE;
    private PublishTracing tracing = PublishTracing.OFF;

    private Builder(RelaySettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * Called after Kafka acknowledged each batch, on the relay's thread; default {@link
     * RelayListener#NONE}.
     */
    public Builder listener(RelayListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Observes each event whose row carries a trace context: an {@code outbox.relay} observation
     * continuing it, and under it an {@code outbox.relay.publish} observation from hand-over to
     * Kafka's acknowledgement, whose context the record's {@code traceparent} header then carries.
     * Needs {@code io.micrometer:micrometer-observation} (an optional dependency); default: none,
     * and the row's headers go out as they are.
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      this.tracing = new ObservedPublishes(Objects.requireNonNull(registry, "registry"));
      return this;
    }

    /** A relay that has not started: {@link OutboxRelay#start()} competes for leadership. */
    public OutboxRelay build() {
      return new OutboxRelay(this);
    }
  }
}
