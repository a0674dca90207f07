package example;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** Books a shipment once per command and announces it through the outbox; no tracing code. */
@SpringBootApplication
public class ShippingApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShippingApplication.class, args);
  }

  @Bean
  IdempotentConsumerDefinition shipmentCommands() {
    return IdempotentConsumerDefinition.of(
        "shipment-commands",
        (message, context) -> {
          context.emit(
              OutboxEvent.of(
                  "shipment", message.recordKey(), "ShipmentBooked", message.payload().toString()));
          return Outcome.success();
        },
        "shipments.commands");
  }
}
