package dev.inboxoutbox.payment;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Payments for orders: turns {@code PaymentRequested} into one charge at the provider, verifies the
 * provider's webhooks and reports {@code PaymentCaptured} / {@code PaymentFailed} back, each effect
 * exactly once. Without {@code spring.datasource.url} it starts the dev stack (embedded PostgreSQL
 * and Kafka) itself, see {@code dev.inboxoutbox.devstack.spring.DevStackEnvironment}.
 */
@SpringBootApplication
public class PaymentConsumerApplication {

  public static void main(String[] args) {
    SpringApplication.run(PaymentConsumerApplication.class, args);
  }
}
