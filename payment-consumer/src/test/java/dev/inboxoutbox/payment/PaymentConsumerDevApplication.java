package dev.inboxoutbox.payment;

import org.springframework.boot.SpringApplication;

/**
 * Development mode: the service on the embedded dev stack (PostgreSQL with logical WAL and an
 * in-JVM Kafka), with the {@code dev} profile and the simulator's webhook secret. Lives in the test
 * sources, so the executable jar never carries either. Run: {@code ./mvnw -pl payment-consumer
 * spring-boot:test-run}.
 */
public final class PaymentConsumerDevApplication {

  private PaymentConsumerDevApplication() {}

  public static void main(String[] args) {
    SpringApplication.from(PaymentConsumerApplication::main)
        .withAdditionalProfiles("dev")
        .run(args);
  }
}
