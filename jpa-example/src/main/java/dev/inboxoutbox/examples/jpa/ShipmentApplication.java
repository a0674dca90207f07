package dev.inboxoutbox.examples.jpa;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The JPA quick start of docs/jpa.md: shipments planned from order events on Kafka and from {@code
 * POST /shipments}, written through a Spring Data JPA repository in the transaction that claims the
 * idempotency key.
 */
@SpringBootApplication
public class ShipmentApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShipmentApplication.class, args);
  }
}
