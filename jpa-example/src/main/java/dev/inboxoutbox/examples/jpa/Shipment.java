package dev.inboxoutbox.examples.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;

@Entity
public class Shipment {

  @Id
  @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "shipment_ids")
  @SequenceGenerator(name = "shipment_ids", sequenceName = "shipment_id_seq", allocationSize = 50)
  private Long id;

  @Column(name = "order_id", nullable = false, unique = true)
  private String orderId;

  @Column(nullable = false)
  private int quantity;

  protected Shipment() {}

  public Shipment(String orderId, int quantity) {
    this.orderId = orderId;
    this.quantity = quantity;
  }

  public Long getId() {
    return id;
  }

  public String getOrderId() {
    return orderId;
  }

  public int getQuantity() {
    return quantity;
  }
}
