package dev.inboxoutbox.examples.jpa;

import dev.inboxoutbox.spring.web.IdempotentEndpoint;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class ShipmentController {

  record NewShipment(String orderId, int quantity) {}

  private final ShipmentRepository shipments;

  ShipmentController(ShipmentRepository shipments) {
    this.shipments = shipments;
  }

  @PostMapping("/shipments")
  @IdempotentEndpoint
  ResponseEntity<Shipment> create(@RequestBody NewShipment request) {
    Shipment shipment = shipments.save(new Shipment(request.orderId(), request.quantity()));
    return ResponseEntity.created(URI.create("/shipments/" + shipment.getId())).body(shipment);
  }
}
