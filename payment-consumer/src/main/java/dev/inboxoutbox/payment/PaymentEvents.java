package dev.inboxoutbox.payment;

import dev.inboxoutbox.outbox.Outbox;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The events this service emits, with the payloads of docs/flows.md, and the outcome bodies its
 * inbox stores. Event ids are derived from the payment, so even a repeated emission would carry the
 * same id and be absorbed downstream.
 */
final class PaymentEvents {

  static final String CHARGE_AGGREGATE = "charge";
  static final String RESULT_AGGREGATE = "payment-result";
  static final String REFUND_AGGREGATE = "refund";
  static final String REFUND_REQUESTED = "RefundRequested";
  static final String CHARGE_REQUESTED = "ChargeRequested";
  static final String PAYMENT_CAPTURED = "PaymentCaptured";
  static final String PAYMENT_FAILED = "PaymentFailed";

  private record ChargeRequested(
      String paymentId, String orderId, long amountCents, String currency, String idempotencyKey) {}

  private record RefundRequested(
      String paymentId,
      String orderId,
      String chargeId,
      long amountCents,
      String currency,
      String idempotencyKey) {}

  /** {@code PaymentCaptured} / {@code PaymentFailed}; {@code reason} is null for a capture. */
  private record PaymentResult(
      String orderId, String paymentId, String chargeId, long amountCents, String reason) {}

  private final JsonMapper json;

  PaymentEvents(JsonMapper json) {
    this.json = json;
  }

  /**
   * The provider's idempotency key for a payment's charge. Derived from the payment, never made per
   * attempt: every retry, redelivery or restart asks for the same charge.
   */
  static String chargeIdempotencyKey(String paymentId) {
    return "charge-" + paymentId;
  }

  OutboxEvent chargeRequested(Payment payment) {
    ChargeRequested payload =
        new ChargeRequested(
            payment.paymentId(),
            payment.orderId(),
            payment.amountCents(),
            payment.currency(),
            chargeIdempotencyKey(payment.paymentId()));
    String body = json.writeValueAsString(payload);
    return OutboxEvent.builder(CHARGE_AGGREGATE, payment.paymentId(), CHARGE_REQUESTED, body)
        .id(Outbox.eventId(CHARGE_REQUESTED, payment.paymentId()))
        .build();
  }

  /**
   * The provider's idempotency key for a payment's refund: derived like the charge's, so every
   * retry, redelivery or restart asks for the same refund, and one payment is refunded once.
   */
  static String refundIdempotencyKey(String paymentId) {
    return "refund-" + paymentId;
  }

  /** The refund of a cancelled order's captured charge, for the refunder. */
  OutboxEvent refundRequested(Payment payment, String chargeId) {
    RefundRequested payload =
        new RefundRequested(
            payment.paymentId(),
            payment.orderId(),
            chargeId,
            payment.amountCents(),
            payment.currency(),
            refundIdempotencyKey(payment.paymentId()));
    String body = json.writeValueAsString(payload);
    return OutboxEvent.builder(REFUND_AGGREGATE, payment.paymentId(), REFUND_REQUESTED, body)
        .id(Outbox.eventId(REFUND_REQUESTED, payment.paymentId()))
        .build();
  }

  OutboxEvent paymentCaptured(Payment payment, String chargeId) {
    return result(PAYMENT_CAPTURED, payment, chargeId, null);
  }

  OutboxEvent paymentFailed(Payment payment, String chargeId, String reason) {
    return result(PAYMENT_FAILED, payment, chargeId, reason);
  }

  private OutboxEvent result(String type, Payment payment, String chargeId, String reason) {
    PaymentResult payload =
        new PaymentResult(
            payment.orderId(), payment.paymentId(), chargeId, payment.amountCents(), reason);
    // One result per payment, whichever it is: a second, contradicting result would reuse this id
    // with another payload and be refused as a conflict by the order service's inbox.
    String body = json.writeValueAsString(payload);
    return OutboxEvent.builder(RESULT_AGGREGATE, payment.orderId(), type, body)
        .id(Outbox.eventId(RESULT_AGGREGATE, payment.paymentId()))
        .build();
  }

  /** The outcome body of a change that contradicts the payment: why, and where the payment is. */
  String rejection(Payment payment, String reason) {
    return outcome(
        "error", reason, "paymentId", payment.paymentId(), "status", payment.status().name());
  }

  /** A small outcome body for the inbox: {@code outcome("paymentId", id, "status", "CAPTURED")}. */
  String outcome(String... fieldsAndValues) {
    if (fieldsAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("outcome needs field/value pairs");
    }
    Map<String, String> body = new LinkedHashMap<>();
    for (int i = 0; i + 1 < fieldsAndValues.length; i += 2) {
      body.put(fieldsAndValues[i], fieldsAndValues[i + 1]);
    }
    return json.writeValueAsString(body);
  }
}
