package dev.inboxoutbox.payment;

import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The {@code payments} table. Runs in the caller's Spring transaction (the consumer batch's), whose
 * connection {@link JdbcClient} takes: a payment's change commits with the inbox claim and the
 * events it causes, or not at all.
 */
final class Payments {

  /** Never read-then-write: the unique indexes decide, so racing deliveries insert it once. */
  private static final String INSERT_IF_ABSENT =
      """
      INSERT INTO payments (payment_id, order_id, customer_id, amount_cents, currency, status)
      VALUES (:paymentId, :orderId, :customerId, :amountCents, :currency, :status)
      ON CONFLICT DO NOTHING
      """;

  private static final String FIND =
      """
      SELECT payment_id, order_id, customer_id, amount_cents, currency, status, charge_id,
             refund_id, version
      FROM payments WHERE payment_id = :paymentId
      """;

  /** Optimistic: names the version read, so a concurrent change makes it update nothing. */
  private static final String UPDATE =
      """
      UPDATE payments SET status = :status, charge_id = :chargeId, failure_reason = :failureReason,
          version = version + 1, updated_at = now()
      WHERE payment_id = :paymentId AND version = :version
      """;

  /** Records the provider's refund; optimistic like {@link #UPDATE}. */
  private static final String RECORD_REFUND =
      """
      UPDATE payments SET status = :status, refund_id = :refundId,
          version = version + 1, updated_at = now()
      WHERE payment_id = :paymentId AND version = :version
      """;

  /** What a {@code PaymentRequested} (or a {@code PaymentCancelRequested}) names. */
  record NewPayment(
      String paymentId, String orderId, String customerId, long amountCents, String currency) {}

  private final JdbcClient jdbc;

  Payments(JdbcClient jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Inserts the payment unless its id or its order already has one; true when this call inserted
   * it.
   */
  boolean insertIfAbsent(NewPayment payment, PaymentStatus status) {
    return jdbc.sql(INSERT_IF_ABSENT)
            .param("paymentId", payment.paymentId())
            .param("orderId", payment.orderId())
            .param("customerId", payment.customerId())
            .param("amountCents", payment.amountCents())
            .param("currency", payment.currency())
            .param("status", status.name())
            .update()
        == 1;
  }

  Optional<Payment> find(String paymentId) {
    return jdbc.sql(FIND)
        .param("paymentId", paymentId)
        .query(
            (row, n) ->
                new Payment(
                    row.getString("payment_id"),
                    row.getString("order_id"),
                    row.getString("customer_id"),
                    row.getLong("amount_cents"),
                    row.getString("currency"),
                    PaymentStatus.valueOf(row.getString("status")),
                    Optional.ofNullable(row.getString("charge_id")),
                    Optional.ofNullable(row.getString("refund_id")),
                    row.getInt("version")))
        .optional();
  }

  /**
   * Moves the payment on if it is still at the version {@code read} saw; false when someone else
   * updated it first (the caller re-reads and decides again).
   */
  boolean update(Payment read, PaymentStatus status, String chargeId, String failureReason) {
    return jdbc.sql(UPDATE)
            .param("status", status.name())
            .param("chargeId", chargeId)
            .param("failureReason", failureReason)
            .param("paymentId", read.paymentId())
            .param("version", read.version())
            .update()
        == 1;
  }

  /** Moves the payment on with the provider's refund, if it is still at the version read. */
  boolean recordRefund(Payment read, PaymentStatus status, String refundId) {
    return jdbc.sql(RECORD_REFUND)
            .param("status", status.name())
            .param("refundId", refundId)
            .param("paymentId", read.paymentId())
            .param("version", read.version())
            .update()
        == 1;
  }
}
