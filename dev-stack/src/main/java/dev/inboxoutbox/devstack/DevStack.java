package dev.inboxoutbox.devstack;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running PostgreSQL and Kafka, chosen by {@link DevStackSettings}: external when configured,
 * else started in this JVM. Start one with {@link #start()}, or share one per JVM with {@link
 * #shared()} (test suites do, and take a fresh database per test class).
 *
 * <pre>{@code
 * try (DevStack stack = DevStack.start();
 *      Database db = stack.postgres().createDatabase()) {
 *   DataSource dataSource = db.dataSource();
 *   String bootstrap = stack.kafka().bootstrapServers();
 * }
 * }</pre>
 */
public final class DevStack implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DevStack.class);

  private static DevStack shared;

  private final DevStackSettings settings;
  private final PostgresServer postgres;
  private final KafkaServer kafka;

  private DevStack(DevStackSettings settings, PostgresServer postgres, KafkaServer kafka) {
    this.settings = settings;
    this.postgres = postgres;
    this.kafka = kafka;
  }

  /** Starts a stack from system properties and environment variables. */
  public static DevStack start() {
    return start(DevStackSettings.fromEnvironment());
  }

  public static DevStack start(DevStackSettings settings) {
    long started = System.nanoTime();
    // Neither server needs the other: PostgreSQL's initdb and start, mostly child processes,
    // overlap
    // with Kafka's start in this thread. That saves about two seconds of every stack's start.
    CompletableFuture<PostgresServer> startingPostgres =
        CompletableFuture.supplyAsync(() -> startPostgres(settings), DevStack::inItsOwnThread);
    KafkaServer kafka;
    try {
      kafka =
          settings
              .kafkaBootstrap()
              .<KafkaServer>map(ExternalKafkaServer::new)
              .orElseGet(() -> EmbeddedKafkaServer.start(settings));
    } catch (RuntimeException e) {
      // Nothing this call started may outlive it.
      try {
        startingPostgres.join().close();
      } catch (RuntimeException postgresFailedToo) {
        e.addSuppressed(postgresFailedToo);
      }
      throw e;
    }
    PostgresServer postgres;
    try {
      postgres = startingPostgres.join();
    } catch (CompletionException e) {
      kafka.close();
      throw e.getCause() instanceof RuntimeException cause ? cause : e;
    }
    log.info(
        "dev stack ready in {} ms: {}; {}",
        (System.nanoTime() - started) / 1_000_000,
        postgres.description(),
        kafka.description());
    return new DevStack(settings, postgres, kafka);
  }

  private static void inItsOwnThread(Runnable task) {
    Thread thread = new Thread(task, "dev-stack-postgres-start");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * One stack per JVM, started on first use and stopped when the JVM exits. Test classes share it
   * so the suite pays the start-up once; each takes its own database for isolation.
   */
  public static DevStack shared() {
    return shared(DevStackSettings.fromEnvironment());
  }

  /**
   * The JVM's one stack, started from {@code settings} on first use. Once it runs, a Kafka port
   * other than the one its broker was started on is refused: the broker cannot move, and a client
   * sent to the asked port would find nothing there.
   */
  public static synchronized DevStack shared(DevStackSettings settings) {
    if (shared == null) {
      DevStack stack = start(settings);
      Runtime.getRuntime().addShutdownHook(new Thread(stack::close, "dev-stack-shutdown"));
      shared = stack;
    } else if (shared.settings.kafkaBootstrap().isEmpty()
        && settings.kafkaPort() > 0
        && settings.kafkaPort() != shared.settings.kafkaPort()) {
      throw new DevStackException(
          "iox.kafka.port="
              + settings.kafkaPort()
              + " asks for a broker on another port than the one this JVM's dev stack already"
              + " runs at "
              + shared.kafka.bootstrapServers()
              + ": set the port before the stack starts, as a system property or IOX_KAFKA_PORT"
              + " for the whole test run");
    }
    return shared;
  }

  private static PostgresServer startPostgres(DevStackSettings settings) {
    return switch (settings.postgresMode()) {
      case EXTERNAL ->
          new ExternalPostgresServer(
              settings.jdbcUrl().orElseThrow(), settings.jdbcUser(), settings.jdbcPassword());
      case TESTCONTAINERS -> ContainerPostgresServer.start();
      case EMBEDDED -> EmbeddedPostgresServer.start(settings);
      case REPLICATED -> ReplicatedPostgresServer.start(settings);
    };
  }

  public PostgresServer postgres() {
    return postgres;
  }

  public KafkaServer kafka() {
    return kafka;
  }

  @Override
  public void close() {
    try {
      kafka.close();
    } finally {
      postgres.close();
    }
  }
}
