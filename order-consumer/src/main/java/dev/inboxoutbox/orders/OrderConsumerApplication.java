package dev.inboxoutbox.orders;

import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * order-consumer: order commands from Kafka and {@code POST /orders}, both on one inbox scope;
 * payment results from payment-consumer. Needs {@code spring.datasource.*} and {@code
 * spring.kafka.bootstrap-servers}; {@code OrderConsumerDevApplication} (test class path) runs it on
 * the dev stack. Its tables are migrated by Spring Boot's Flyway ({@code spring.flyway.*} in
 * application.properties).
 */
@SpringBootApplication
public class OrderConsumerApplication {

  /** Topic of order commands. */
  public static final String COMMANDS_TOPIC = "orders.commands";

  /** Inbox scope shared by the Kafka commands and the HTTP endpoint: one key, one order. */
  public static final String COMMANDS_OPERATION = "order-commands";

  public static void main(String[] args) {
    SpringApplication.run(OrderConsumerApplication.class, args);
  }

  @Bean
  Orders orders(JdbcClient jdbc, JsonMapper json) {
    return new Orders(jdbc, json);
  }

  @Bean
  IdempotentConsumerDefinition orderCommands(Orders orders, JsonMapper json) {
    return IdempotentConsumerDefinition.of(
        COMMANDS_OPERATION, new OrderCommandHandler(orders, json), COMMANDS_TOPIC);
  }

  @Bean
  IdempotentConsumerDefinition paymentResults(Orders orders, JsonMapper json) {
    return IdempotentConsumerDefinition.of(
        "order-payments", new PaymentResultHandler(orders, json), "outbox.event.payment-result");
  }
}
