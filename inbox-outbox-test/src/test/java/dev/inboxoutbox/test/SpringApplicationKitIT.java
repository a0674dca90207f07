package dev.inboxoutbox.test;

import static dev.inboxoutbox.test.ExactlyOnceAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.apache.kafka.clients.admin.NewTopic;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The kit in a {@code @SpringBootTest} of an application using the starter, on the dev stack (the
 * dev-stack jar points the context at it): a handler writing through {@code JdbcClient} passes
 * every scenario; one whose write runs in a {@code REQUIRES_NEW} transaction is caught.
 */
@SpringBootTest(
    classes = SpringApplicationKitIT.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {
      "spring.application.name=iox-test-kit-spring",
      "spring.sql.init.mode=always",
      "spring.sql.init.schema-locations=classpath:kit-schema.sql",
      // Two listener threads per consumer, one per partition: the race scenario needs both.
      "inbox-outbox.consumer.concurrency=2",
      // Short back-offs keep the scenarios that fail a batch quick.
      "inbox-outbox.consumer.retry-backoff-min=50ms",
      "inbox-outbox.consumer.retry-backoff-max=200ms",
      "inbox-outbox.retention.enabled=false"
    })
@Import(ExactlyOnceTestConfiguration.class)
class SpringApplicationKitIT {

  static final String ORDERS = "kit-spring-orders";
  static final String AUDITED = "kit-spring-audited";

  @Autowired ApplicationContext context;
  @Autowired JdbcClient jdbc;

  /** Writes an audit row in a transaction of its own, which commits whatever the batch does. */
  static class AuditLog {
    private final JdbcClient jdbc;

    AuditLog(JdbcClient jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void recordInNewTransaction(String key) {
      jdbc.sql("INSERT INTO kit_audit (order_key) VALUES (?)").param(key).update();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    NewTopic kitSpringOrders() {
      return TopicBuilder.name(ORDERS).partitions(2).replicas(1).build();
    }

    @Bean
    NewTopic kitSpringAudited() {
      return TopicBuilder.name(AUDITED).partitions(2).replicas(1).build();
    }

    @Bean
    AuditLog auditLog(JdbcClient jdbc) {
      return new AuditLog(jdbc);
    }

    /** JdbcClient joins the batch's transaction: the order commits with the claim or not at all. */
    @Bean
    IdempotentConsumerDefinition kitOrders(JdbcClient jdbc) {
      return IdempotentConsumerDefinition.of(
          "kit-spring-orders",
          (message, context) -> {
            jdbc.sql("INSERT INTO kit_order (order_key) VALUES (?)")
                .param(message.idempotencyKey().value())
                .update();
            return Outcome.success();
          },
          ORDERS);
    }

    /** The broken one: REQUIRES_NEW suspends the batch's transaction and commits on its own. */
    @Bean
    IdempotentConsumerDefinition kitAudited(AuditLog audit) {
      return IdempotentConsumerDefinition.of(
          "kit-spring-audited",
          (message, context) -> {
            audit.recordInNewTransaction(message.idempotencyKey().value());
            return Outcome.success();
          },
          AUDITED);
    }
  }

  @Test
  void aHandlerWritingThroughJdbcClientPassesEveryScenario() {
    try (ExactlyOnceKit kit = kit(ORDERS, "kit_order")) {
      assertThat(kit).isExactlyOnce();
    }
  }

  @Test
  void aRequiresNewWriteIsCaughtByTheFailureAfterTheWrites() {
    try (ExactlyOnceKit kit = kit(AUDITED, "kit_audit")) {
      assertThatThrownBy(() -> assertThat(kit).survivesFailureAfterWrites())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'failure after the handler's writes'")
          .hasMessageContaining("3 of 3 keys without exactly one effect")
          .hasMessageMatching("(?s).*key fail-\\w+-1-0: [2-9] effects \\(expected exactly 1\\).*");
    }
  }

  @Test
  void aRequiresNewWriteIsCaughtByACrashBeforeTheCommit() {
    try (ExactlyOnceKit kit = kit(AUDITED, "kit_audit")) {
      assertThatThrownBy(() -> assertThat(kit).survivesCrashBeforeCommit())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'crash before the database commit'")
          .hasMessageMatching(
              "(?s).*key crash-tx-\\w+-1-\\d: 2 effects \\(expected exactly 1\\).*");
    }
  }

  @Test
  void aRequiresNewWriteIsTheHeadlineWhenEveryKeyHasOneEffect() {
    try (ExactlyOnceKit kit = kit(AUDITED, "kit_audit")) {
      // Duplicates never reach the handler, so each key has its one audit row; the counter of
      // suspended batch transactions still tells that the row was written outside the guarantee.
      assertThatThrownBy(() -> assertThat(kit).survivesDuplicateDelivery())
          .isInstanceOf(AssertionError.class)
          .hasMessageMatching(
              "(?s).*scenario 'duplicate delivery' \\([^\\n]*\\): the handler suspended the"
                  + " batch transaction 3 time\\(s\\).*")
          .hasMessageNotContaining("0 of 3 keys without exactly one effect");
    }
  }

  @Test
  void aSimulatedCrashLogsOneInfoLineAndNoError() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.start();
    root.addAppender(events);
    try (ExactlyOnceKit kit = kit(ORDERS, "kit_order")) {
      assertThat(kit).survivesCrashBeforeCommit().survivesCrashAfterCommit();
    } finally {
      root.detachAppender(events);
    }
    // The crash is expected: a passing build must not show it as an error with a stack trace.
    Assertions.assertThat(events.list)
        .filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN))
        .filteredOn(SpringApplicationKitIT::aboutASimulatedCrash)
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
    Assertions.assertThat(events.list)
        .filteredOn(event -> event.getLevel() == Level.INFO)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(message -> message.contains("simulated crash"))
        .hasSize(2);
  }

  private static boolean aboutASimulatedCrash(ILoggingEvent event) {
    for (IThrowableProxy thrown = event.getThrowableProxy();
        thrown != null;
        thrown = thrown.getCause()) {
      if (thrown.getClassName().equals(SimulatedCrash.class.getName())) {
        return true;
      }
    }
    return event.getFormattedMessage().contains("simulated crash");
  }

  private ExactlyOnceKit kit(String topic, String table) {
    String count = "SELECT count(*) FROM " + table + " WHERE order_key = ?";
    return ExactlyOnceKit.forApplication(context)
        .topic(topic)
        .payload(key -> "{\"orderKey\":\"" + key + "\"}")
        .effects(key -> jdbc.sql(count).param(key).query(Long.class).single())
        .build();
  }
}
