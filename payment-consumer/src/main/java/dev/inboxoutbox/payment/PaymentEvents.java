package dev.inboxoutbox.payment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;

/**
 * The events this service emits, with the payloads of docs/flows.md. Event ids are derived from the
 * payment, so even a repeated emission would carry the same id and be absorbed downstream.
 */
final class PaymentEvents {

  static final String CHARGE_AGGREGATE = "charge";
  static final String RESULT_AGGREGATE = "payment-result";
  static final String CHARGE_REQUESTED = "ChargeRequested";
  static final String PAYMENT_CAPTURED = "PaymentCaptured";
  static final String PAYMENT_FAILED = "PaymentFailed";

  private static final ObjectMapper JSON = new ObjectMapper();

  private PaymentEvents() {}

  /**
   * The provider's idempotency key for a payment's charge. Derived from the payment, never made per
   * attempt: every retry, redelivery or restart asks for the same charge.
   */
  static String chargeIdempotencyKey(String paymentId) {
    return "charge-" + paymentId;
  }

  static OutboxEvent chargeRequested(Payment payment) {
    ObjectNode payload = JSON.createObjectNode();
    payload.put("paymentId", payment.paymentId());
    payload.put("orderId", payment.orderId());
    payload.put("amountCents", payment.amountCents());
    payload.put("currency", payment.currency());
    payload.put("idempotencyKey", chargeIdempotencyKey(payment.paymentId()));
    return OutboxEvent.of(CHARGE_AGGREGATE, payment.paymentId(), CHARGE_REQUESTED, write(payload))
        .withId(Outbox.eventId(CHARGE_REQUESTED, payment.paymentId()));
  }

  static OutboxEvent paymentCaptured(Payment payment, String chargeId) {
    return result(PAYMENT_CAPTURED, payment, chargeId, null);
  }

  static OutboxEvent paymentFailed(Payment payment, String chargeId, String reason) {
    return result(PAYMENT_FAILED, payment, chargeId, reason);
  }

  private static OutboxEvent result(String type, Payment payment, String chargeId, String reason) {
    ObjectNode payload = JSON.createObjectNode();
    payload.put("orderId", payment.orderId());
    payload.put("paymentId", payment.paymentId());
    payload.put("chargeId", chargeId);
    payload.put("amountCents", payment.amountCents());
    payload.put("reason", reason);
    // One result per payment, whichever it is: a second, contradicting result would reuse this id
    // with another payload and be refused as a conflict by the order service's inbox.
    return OutboxEvent.of(RESULT_AGGREGATE, payment.orderId(), type, write(payload))
        .withId(Outbox.eventId(RESULT_AGGREGATE, payment.paymentId()));
  }

  /** A small outcome body for the inbox: {@code outcome("paymentId", id, "status", "CAPTURED")}. */
  static String outcome(String... fieldsAndValues) {
    if (fieldsAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("outcome needs field/value pairs");
    }
    ObjectNode body = JSON.createObjectNode();
    for (int i = 0; i + 1 < fieldsAndValues.length; i += 2) {
      body.put(fieldsAndValues[i], fieldsAndValues[i + 1]);
    }
    return write(body);
  }

  private static String write(ObjectNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an ObjectNode always serialises", e);
    }
  }
}
