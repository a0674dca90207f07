package dev.inboxoutbox.orders;

import org.springframework.boot.SpringApplication;

/**
 * Development mode: the service on the embedded dev stack (PostgreSQL with logical WAL and an
 * in-JVM Kafka), with the {@code dev} profile. Lives in the test sources, so the executable jar
 * never carries the stack. Run: {@code ./mvnw -pl order-consumer spring-boot:test-run}.
 */
public final class OrderConsumerDevApplication {

  private OrderConsumerDevApplication() {}

  public static void main(String[] args) {
    SpringApplication.from(OrderConsumerApplication::main).withAdditionalProfiles("dev").run(args);
  }
}
