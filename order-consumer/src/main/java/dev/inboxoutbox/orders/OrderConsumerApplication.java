package dev.inboxoutbox.orders;

import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * order-consumer: order commands from Kafka and {@code POST /orders}, both on one inbox scope;
 * payment results from payment-consumer. Runs against the dev stack when no datasource is set. Its
 * tables are migrated by Spring Boot's Flyway ({@code spring.flyway.*} in application.properties).
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
  OrderHandlers orderHandlers(Orders orders, JsonMapper json) {
    return new OrderHandlers(orders, json);
  }

  @Bean
  IdempotentConsumerDefinition orderCommands(OrderHandlers handlers) {
    return IdempotentConsumerDefinition.of(COMMANDS_OPERATION, handlers::command, COMMANDS_TOPIC);
  }

  @Bean
  IdempotentConsumerDefinition paymentResults(OrderHandlers handlers) {
    return IdempotentConsumerDefinition.of(
        "order-payments", handlers::paymentResult, "outbox.event.payment-result");
  }
}
