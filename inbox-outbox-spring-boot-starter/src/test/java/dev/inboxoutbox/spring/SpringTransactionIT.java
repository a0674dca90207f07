package dev.inboxoutbox.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.inboxoutbox.consumer.BatchProcessor;
import dev.inboxoutbox.consumer.ConsumerStats;
import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Handlers written with Spring's JDBC tools (JdbcClient, a Spring Data JDBC repository,
 * {@code @Transactional} services) write in the transaction that claims the key, so a failing
 * handler leaves neither its rows nor the claim behind.
 */
class SpringTransactionIT {

  private static final Duration PATIENCE = Duration.ofSeconds(120);
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final AtomicBoolean CRASH_AFTER_COMMIT = new AtomicBoolean();

  /** How many more attempts the broken-connection handler ends its own database session on. */
  private static final AtomicInteger SESSIONS_TO_END = new AtomicInteger();

  /** Per key: whether the handler's JdbcClient saw the claim the batch made (same transaction). */
  private static final Map<String, Boolean> CLAIM_SEEN_BY_JDBC_CLIENT = new ConcurrentHashMap<>();

  private static DevStackApplication app;

  record Shipment(@Id Long id, String idempotencyKey) {}

  interface ShipmentRepository extends CrudRepository<Shipment, Long> {}

  /** Writes an audit row with the propagation its method names. */
  static class AuditLog {
    private final JdbcClient jdbc;

    AuditLog(JdbcClient jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void recordInNewTransaction(String key) {
      insert(key);
    }

    @Transactional(propagation = Propagation.NESTED)
    public void recordNested(String key) {
      insert(key);
    }

    @Transactional(propagation = Propagation.MANDATORY)
    public void recordInMandatoryTransaction(String key) {
      insert(key);
    }

    @Transactional(propagation = Propagation.SUPPORTS)
    public void recordInAnyTransaction(String key) {
      insert(key);
    }

    @Transactional(propagation = Propagation.NOT_SUPPORTED)
    public void recordWithoutTransaction(String key) {
      insert(key);
    }

    private void insert(String key) {
      jdbc.sql("INSERT INTO audit (idempotency_key) VALUES (?)").param(key).update();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableJdbcRepositories(considerNestedRepositories = true)
  static class App {

    @Bean
    AuditLog auditLog(JdbcClient jdbc) {
      return new AuditLog(jdbc);
    }

    @Bean
    BatchProcessor.Hooks crashOnceAfterCommitWhenArmed() {
      return new BatchProcessor.Hooks() {
        @Override
        public void batchCommitted(List<ConsumerRecord<String, byte[]>> records) {
          if (CRASH_AFTER_COMMIT.compareAndSet(true, false)) {
            throw new IllegalStateException("injected crash after the database commit");
          }
        }
      };
    }

    @Bean
    IdempotentConsumerDefinition jdbcClientWrites(JdbcClient jdbc) {
      return IdempotentConsumerDefinition.of(
          "tx-jdbc-client",
          (message, context) -> {
            String key = message.idempotencyKey().value();
            jdbc.sql("INSERT INTO shipment (idempotency_key) VALUES (?)").param(key).update();
            Integer claims =
                jdbc.sql("SELECT count(*) FROM inbox WHERE operation = ? AND idempotency_key = ?")
                    .params("tx-jdbc-client", key)
                    .query(Integer.class)
                    .single();
            CLAIM_SEEN_BY_JDBC_CLIENT.put(key, claims == 1);
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("jdbc-client"));
    }

    @Bean
    IdempotentConsumerDefinition repositoryWrites(ShipmentRepository shipments) {
      return IdempotentConsumerDefinition.of(
          "tx-repository",
          (message, context) -> {
            shipments.save(new Shipment(null, message.idempotencyKey().value()));
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("repository"));
    }

    @Bean
    IdempotentConsumerDefinition writesThenCrashes(JdbcClient jdbc) {
      return IdempotentConsumerDefinition.of(
          "tx-crash",
          (message, context) -> {
            jdbc.sql("INSERT INTO shipment (idempotency_key) VALUES (?)")
                .param(message.idempotencyKey().value())
                .update();
            return Outcome.success();
          },
          topic("crash"));
    }

    @Bean
    IdempotentConsumerDefinition endsItsOwnSession(JdbcClient jdbc) {
      return IdempotentConsumerDefinition.of(
          "tx-broken-connection",
          (message, context) -> {
            jdbc.sql("INSERT INTO shipment (idempotency_key) VALUES (?)")
                .param(message.idempotencyKey().value())
                .update();
            if (SESSIONS_TO_END.getAndDecrement() > 0) {
              // The server ends the session under the open transaction, as a restart or a network
              // cut does: the pool then closes the connection and the rollback fails as well.
              jdbc.sql("SELECT pg_terminate_backend(pg_backend_pid())").query().singleValue();
            }
            return Outcome.success();
          },
          topic("broken-connection"));
    }

    @Bean
    IdempotentConsumerDefinition requiresNewWrites(AuditLog audit) {
      return IdempotentConsumerDefinition.of(
          "tx-requires-new",
          (message, context) -> {
            audit.recordInNewTransaction(message.idempotencyKey().value());
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("requires-new"));
    }

    @Bean
    IdempotentConsumerDefinition nestedWrites(AuditLog audit) {
      return IdempotentConsumerDefinition.of(
          "tx-nested",
          (message, context) -> {
            audit.recordNested(message.idempotencyKey().value());
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("nested"));
    }

    @Bean
    IdempotentConsumerDefinition joiningWrites(AuditLog audit) {
      return IdempotentConsumerDefinition.of(
          "tx-joining",
          (message, context) -> {
            audit.recordInMandatoryTransaction(message.idempotencyKey().value());
            audit.recordInAnyTransaction(message.idempotencyKey().value());
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("joining"));
    }

    @Bean
    IdempotentConsumerDefinition notSupportedWrites(AuditLog audit) {
      return IdempotentConsumerDefinition.of(
          "tx-not-supported",
          (message, context) -> {
            audit.recordWithoutTransaction(message.idempotencyKey().value());
            failWhenAsked(message);
            return Outcome.success();
          },
          topic("not-supported"));
    }

    private static void failWhenAsked(IncomingMessage message) {
      if (message.payload().path("fail").asBoolean()) {
        throw new IllegalStateException("handler failed after writing, as asked");
      }
    }
  }

  @BeforeAll
  static void start() throws SQLException {
    app =
        DevStackApplication.start(
            App.class,
            WebApplicationType.NONE,
            """
            CREATE TABLE shipment (id bigserial PRIMARY KEY, idempotency_key text NOT NULL);
            CREATE TABLE audit (id bigserial PRIMARY KEY, idempotency_key text NOT NULL);
            """,
            "inbox-outbox.retention.enabled=false");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aJdbcClientWriteRollsBackWithTheClaimWhenTheHandlerFails() {
    send("jdbc-client", "jc-ok", "{\"n\":1}");
    send("jdbc-client", "jc-fail", "{\"fail\":true}");

    awaitDeadLetter("tx-jdbc-client");

    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "jc-fail"))
        .as("the failed handler's JdbcClient row")
        .isZero();
    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "jc-ok"))
        .isEqualTo(1);
    assertThat(claims("tx-jdbc-client", "jc-fail")).as("the failed record's claim").isZero();
    assertThat(CLAIM_SEEN_BY_JDBC_CLIENT)
        .as("JdbcClient runs in the claim's transaction")
        .containsEntry("jc-ok", true);
  }

  @Test
  void aSpringDataRepositoryWriteRollsBackWithTheClaimWhenTheHandlerFails() {
    send("repository", "repo-ok", "{\"n\":1}");
    send("repository", "repo-fail", "{\"fail\":true}");

    awaitDeadLetter("tx-repository");

    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "repo-ok"))
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "repo-fail"))
        .as("the failed handler's repository row")
        .isZero();
    assertThat(claims("tx-repository", "repo-fail")).as("the failed record's claim").isZero();
  }

  @Test
  void aCrashAfterTheCommitBeforeTheOffsetCommitIsAbsorbedWithOneRow() {
    CRASH_AFTER_COMMIT.set(true);
    send("crash", "crash-1", "{\"n\":1}");

    ConsumerStats stats = stats("tx-crash");
    await("the redelivered batch absorbed as a duplicate")
        .atMost(PATIENCE)
        .until(() -> !CRASH_AFTER_COMMIT.get() && stats.snapshot().duplicates() >= 1);

    assertThat(stats.snapshot().applied()).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "crash-1"))
        .isEqualTo(1);
    assertThat(claims("tx-crash", "crash-1")).isEqualTo(1);
  }

  @Test
  void aSessionLostMidTransactionWhoseRollbackAlsoFailsIsRetriedNotDeadLettered() {
    SESSIONS_TO_END.set(2);
    send("broken-connection", "broken-1", "{\"n\":1}");

    ConsumerStats stats = stats("tx-broken-connection");
    await("the record applied once the database answers again")
        .atMost(PATIENCE)
        .until(() -> stats.snapshot().applied() == 1 || stats.snapshot().deadLettered() > 0);

    assertThat(stats.snapshot().deadLettered())
        .as("a lost connection is the database failing, not the record")
        .isZero();
    assertThat(SESSIONS_TO_END.get()).as("both broken attempts happened").isNegative();
    assertThat(count("SELECT count(*) FROM shipment WHERE idempotency_key = ?", "broken-1"))
        .isEqualTo(1);
    assertThat(claims("tx-broken-connection", "broken-1")).isEqualTo(1);
  }

  @Test
  void aRequiresNewWriteEscapesTheRollbackAndIsReported() {
    ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    Logger batchLog = (Logger) LoggerFactory.getLogger(BatchProcessor.class);
    warnings.start();
    batchLog.addAppender(warnings);
    try {
      send("requires-new", "new-fail", "{\"fail\":true}");

      awaitDeadLetter("tx-requires-new");
    } finally {
      batchLog.detachAppender(warnings);
    }

    long escaped = count("SELECT count(*) FROM audit WHERE idempotency_key = ?", "new-fail");
    assertThat(escaped).as("REQUIRES_NEW commits on its own: one row per attempt").isPositive();
    assertThat(claims("tx-requires-new", "new-fail")).isZero();
    assertThat(stats("tx-requires-new").snapshot().transactionSuspensions()).isEqualTo(escaped);
    MeterRegistry meters = app.context().getBean(MeterRegistry.class);
    assertThat(
            meters
                .get("iox.consumer.transaction.suspensions")
                .tag("operation", "tx-requires-new")
                .functionCounter()
                .count())
        .isEqualTo(escaped);
    assertThat(warnings.list)
        .filteredOn(
            event ->
                event.getFormattedMessage().startsWith("tx-requires-new: the handler suspended"))
        .hasSize(Math.toIntExact(escaped))
        .allSatisfy(
            event -> {
              assertThat(event.getLevel()).isEqualTo(Level.WARN);
              assertThat(event.getFormattedMessage())
                  .contains("(key new-fail)")
                  .contains("outside the exactly-once guarantee");
            });
  }

  @Test
  void aNestedWriteStaysInsideTheBatchTransaction() {
    send("nested", "nested-fail", "{\"fail\":true}");

    awaitDeadLetter("tx-nested");

    assertThat(count("SELECT count(*) FROM audit WHERE idempotency_key = ?", "nested-fail"))
        .as("a savepoint on the batch's connection rolls back with it")
        .isZero();
    assertThat(claims("tx-nested", "nested-fail")).isZero();
    assertThat(stats("tx-nested").snapshot().transactionSuspensions()).isZero();
  }

  @Test
  void mandatoryAndSupportsWritesJoinTheBatchTransaction() {
    send("joining", "joined-ok", "{\"n\":1}");
    send("joining", "joined-fail", "{\"fail\":true}");

    awaitDeadLetter("tx-joining");

    assertThat(count("SELECT count(*) FROM audit WHERE idempotency_key = ?", "joined-fail"))
        .isZero();
    assertThat(count("SELECT count(*) FROM audit WHERE idempotency_key = ?", "joined-ok"))
        .as("one MANDATORY and one SUPPORTS row, committed once with the claim")
        .isEqualTo(2);
    assertThat(stats("tx-joining").snapshot().transactionSuspensions()).isZero();
  }

  @Test
  void aNotSupportedWriteEscapesTheRollbackAndIsCounted() {
    send("not-supported", "outside-fail", "{\"fail\":true}");

    awaitDeadLetter("tx-not-supported");

    long escaped = count("SELECT count(*) FROM audit WHERE idempotency_key = ?", "outside-fail");
    assertThat(escaped).as("NOT_SUPPORTED writes on a connection of its own").isPositive();
    assertThat(stats("tx-not-supported").snapshot().transactionSuspensions()).isEqualTo(escaped);
  }

  private static void awaitDeadLetter(String operation) {
    ConsumerStats stats = stats(operation);
    await(operation + " dead-letters the failing record")
        .atMost(PATIENCE)
        .until(
            () ->
                stats.deadLetters(DeadLetterReason.HANDLER_ERROR) == 1
                    && stats.snapshot().records() >= 1);
    assertThat(stats.snapshot().deadLettered()).isEqualTo(1);
  }

  private static ConsumerStats stats(String operation) {
    return app.context().getBean(IdempotentConsumers.class).stats().get(operation);
  }

  private static String topic(String scenario) {
    return "spring-tx-" + scenario + "-" + RUN;
  }

  private static void send(String scenario, String key, String json) {
    TopicWriter.sendOne(
        RecordBuilder.to(topic(scenario)).key("aggregate").idempotencyKey(key).json(json).build());
  }

  private static long claims(String operation, String key) {
    return count(
        "SELECT count(*) FROM inbox WHERE operation = ? AND idempotency_key = ?", operation, key);
  }

  private static long count(String sql, Object... parameters) {
    return Rows.count(app.database().dataSource(), sql, parameters);
  }
}
