package dev.inboxoutbox.orders;

import dev.inboxoutbox.schema.MigrationLock;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * order-consumer: order commands from Kafka and {@code POST /orders}, both on one inbox scope;
 * payment results from payment-consumer. Runs against the dev stack when no datasource is set.
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

  /**
   * The service's own tables, with a history table apart from the framework's; safe from any number
   * of instances starting at once.
   */
  @Bean
  OrdersSchema ordersSchema(DataSource dataSource) {
    MigrationLock.migrate(
        Flyway.configure()
            .dataSource(dataSource)
            .locations("classpath:db/orders/migration")
            .table("orders_schema_history")
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load());
    return new OrdersSchema();
  }

  @Bean
  Orders orders(OrdersSchema schema) {
    return new Orders();
  }

  @Bean
  OrderHandlers orderHandlers(Orders orders) {
    return new OrderHandlers(orders);
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

  /** Marks the service's tables as migrated. */
  static final class OrdersSchema {}
}
