package dev.inboxoutbox.payment;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Payments for orders: turns {@code PaymentRequested} into one charge at the provider, verifies the
 * provider's webhooks and reports {@code PaymentCaptured} / {@code PaymentFailed} back, each effect
 * exactly once. Needs {@code spring.datasource.*} and {@code spring.kafka.bootstrap-servers}; the
 * test class path's development application runs it on the dev stack (docs/operations.md).
 */
@SpringBootApplication
public class PaymentConsumerApplication {

  public static void main(String[] args) {
    SpringApplication.run(PaymentConsumerApplication.class, args);
  }
}
