package dev.inboxoutbox.devstack;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running PostgreSQL and Kafka, chosen by {@link DevStackSettings}: external when configured, else
 * started in this JVM. Start one with {@link #start()}, or share one per JVM with {@link #shared()}
 * (test suites do, and take a fresh database per test class).
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

  private final PostgresServer postgres;
  private final KafkaServer kafka;

  private DevStack(PostgresServer postgres, KafkaServer kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  /** Starts a stack from system properties and environment variables. */
  public static DevStack start() {
    return start(DevStackSettings.fromEnvironment());
  }

  public static DevStack start(DevStackSettings settings) {
    long started = System.nanoTime();
    PostgresServer postgres = startPostgres(settings);
    KafkaServer kafka;
    try {
      kafka =
          settings
              .kafkaBootstrap()
              .<KafkaServer>map(ExternalKafkaServer::new)
              .orElseGet(() -> EmbeddedKafkaServer.start(settings));
    } catch (RuntimeException e) {
      postgres.close();
      throw e;
    }
    log.info(
        "dev stack ready in {} ms: {}; {}",
        (System.nanoTime() - started) / 1_000_000,
        postgres.description(),
        kafka.description());
    return new DevStack(postgres, kafka);
  }

  /**
   * One stack per JVM, started on first use and stopped when the JVM exits. Test classes share it
   * so the suite pays the start-up once; each takes its own database for isolation.
   */
  public static synchronized DevStack shared() {
    if (shared == null) {
      DevStack stack = start();
      Runtime.getRuntime().addShutdownHook(new Thread(stack::close, "dev-stack-shutdown"));
      shared = stack;
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
