package dev.inboxoutbox.examples.jpa;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.outbox.OutboxEvent;
import dev.inboxoutbox.spring.IdempotentConsumerDefinition;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

@Configuration(proxyBeanMethods = false)
class ShipmentConsumer {

  @Bean
  IdempotentConsumerDefinition planShipments(
      ShipmentRepository shipments, @Value("${shipments.orders-topic:orders}") String topic) {
    return IdempotentConsumerDefinition.of(
        "plan-shipments",
        (message, context) -> {
          JsonNode order = message.payload();
          Shipment shipment =
              shipments.save(
                  new Shipment(order.get("orderId").asString(), order.get("quantity").asInt()));
          // save() took the id from the sequence; the INSERT runs when the batch commits.
          context.emit(
              OutboxEvent.of(
                  "shipment",
                  shipment.getOrderId(),
                  "ShipmentPlanned",
                  "{\"shipmentId\":" + shipment.getId() + "}"));
          return Outcome.success();
        },
        topic);
  }
}
