package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.kafka.RecordBuilder;
import dev.inboxoutbox.testing.kafka.TopicReader;
import dev.inboxoutbox.testing.kafka.TopicWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.orm.jpa.DefaultJpaDialect;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A JpaTransactionManager whose dialect does not expose the JDBC connection (here Spring's {@link
 * DefaultJpaDialect}, as a JPA provider without a Spring dialect has): no connection is bound to
 * the transaction, so the inbox would get a connection of its own, in auto-commit. The starter
 * refuses to write on it: every record fails and is dead-lettered, every idempotent request fails.
 */
class NonExposingJpaDialectIT {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String ORDERS = "jpa-plain-dialect-orders-" + RUN;

  private static ExampleApplication app;

  /** Not a {@code @Configuration}: the application's component scan must not pick it up. */
  static class PlainJpaDialect {
    /** The EntityManagerFactory's dialect is the one JpaTransactionManager takes from it. */
    @Bean
    static BeanPostProcessor plainJpaDialect() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessBeforeInitialization(Object bean, String name) {
          if (bean instanceof LocalContainerEntityManagerFactoryBean factory) {
            factory.setJpaDialect(new DefaultJpaDialect());
          }
          return bean;
        }
      };
    }
  }

  @BeforeAll
  static void start() {
    app =
        ExampleApplication.start(
            List.of(PlainJpaDialect.class), "shipments.orders-topic=" + ORDERS);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void everyRecordIsDeadLetteredAndEveryIdempotentRequestFails() throws Exception {
    JpaTransactionManager transactions =
        (JpaTransactionManager) app.context().getBean(PlatformTransactionManager.class);
    assertThat(transactions.getJpaDialect()).isExactlyInstanceOf(DefaultJpaDialect.class);

    String order = "order-" + RUN;
    try (TopicReader deadLetters = new TopicReader(ORDERS + ".DLT")) {
      TopicWriter.sendOne(
          RecordBuilder.to(ORDERS)
              .key(order)
              .idempotencyKey("key-" + order)
              .json("{\"orderId\":\"" + order + "\",\"quantity\":1}")
              .build());

      ConsumerRecord<String, byte[]> letter =
          deadLetters.readUntil(order, records -> records.size() == 1, PATIENCE).get(0);
      assertThat(TopicReader.header(letter, DeadLetterReason.Headers.REASON))
          .isEqualTo(DeadLetterReason.HANDLER_ERROR.name());
      assertThat(TopicReader.header(letter, DeadLetterReason.Headers.DETAIL))
          .contains("the transaction manager does not manage the inbox's data source");
    }

    HttpResponse<String> answer = app.postShipment("http-" + UUID.randomUUID(), "http-" + order, 1);
    assertThat(answer.statusCode()).isEqualTo(500);

    assertThat(count("SELECT count(*) FROM shipment")).as("nothing written").isZero();
    assertThat(count("SELECT count(*) FROM inbox")).isZero();
  }

  private static long count(String sql) {
    return Rows.count(app.database(), sql);
  }
}
