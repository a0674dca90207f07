package dev.inboxoutbox.test;

import static dev.inboxoutbox.test.ExactlyOnceAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.TopicBuilder;

/**
 * An application whose consumer runs one listener thread (the starter's default concurrency): the
 * copies of a key are consumed one after another, so the race scenario cannot race and must say so
 * instead of passing.
 */
@SpringBootTest(
    classes = SpringSingleListenerThreadKitIT.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.NONE,
    properties = {
      "spring.application.name=iox-test-kit-spring-single",
      "spring.sql.init.mode=always",
      "spring.sql.init.schema-locations=classpath:kit-schema.sql",
      "inbox-outbox.retention.enabled=false"
    })
@Import(ExactlyOnceTestConfiguration.class)
class SpringSingleListenerThreadKitIT {

  static final String ORDERS = "kit-spring-single-orders";

  @Autowired ApplicationContext context;
  @Autowired JdbcClient jdbc;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    @Bean
    NewTopic kitSpringSingleOrders() {
      return TopicBuilder.name(ORDERS).partitions(2).replicas(1).build();
    }

    @Bean
    IdempotentConsumerDefinition kitSingleOrders(JdbcClient jdbc) {
      return IdempotentConsumerDefinition.of(
          "kit-spring-single-orders",
          (message, context) -> {
            jdbc.sql("INSERT INTO kit_order (order_key) VALUES (?)")
                .param(message.idempotencyKey().value())
                .update();
            return Outcome.success();
          },
          ORDERS);
    }
  }

  @Test
  void theRaceWithOneListenerThreadFailsAsNotExercised() {
    try (ExactlyOnceKit kit =
        ExactlyOnceKit.forApplication(context)
            .topic(ORDERS)
            .payload(key -> "{\"orderKey\":\"" + key + "\"}")
            .effects(
                key ->
                    jdbc.sql("SELECT count(*) FROM kit_order WHERE order_key = ?")
                        .param(key)
                        .query(Long.class)
                        .single())
            .build()) {
      assertThatThrownBy(() -> assertThat(kit).survivesConcurrentDuplicates())
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("scenario 'concurrent duplicates'")
          .hasMessageContaining("not exercised")
          .hasMessageContaining("inbox-outbox.consumer.concurrency");
    }
  }
}
