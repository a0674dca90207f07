package dev.inboxoutbox.payment;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** The {@code payments} table, always inside the caller's transaction. */
final class Payments {

  /** What a {@code PaymentRequested} asks for. */
  record NewPayment(String paymentId, String orderId, String customerId, long amountCents, String currency) {}

  /**
   * Inserts the payment unless its id or its order already has one; true when this call inserted
   * it. Never read-then-write: the unique indexes decide, so two deliveries racing on one payment
   * insert it once.
   */
  boolean insertIfAbsent(Connection tx, NewPayment payment) throws SQLException {
    try (PreparedStatement insert =
        tx.prepareStatement(
            "INSERT INTO payments (payment_id, order_id, customer_id, amount_cents, currency, status)"
                + " VALUES (?, ?, ?, ?, ?, 'REQUESTED') ON CONFLICT DO NOTHING")) {
      insert.setString(1, payment.paymentId());
      insert.setString(2, payment.orderId());
      insert.setString(3, payment.customerId());
      insert.setLong(4, payment.amountCents());
      insert.setString(5, payment.currency());
      return insert.executeUpdate() == 1;
    }
  }

  Optional<Payment> find(Connection tx, String paymentId) throws SQLException {
    try (PreparedStatement query =
        tx.prepareStatement(
            "SELECT payment_id, order_id, customer_id, amount_cents, currency, status, charge_id, version"
                + " FROM payments WHERE payment_id = ?")) {
      query.setString(1, paymentId);
      try (ResultSet row = query.executeQuery()) {
        if (!row.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Payment(
                row.getString("payment_id"),
                row.getString("order_id"),
                row.getString("customer_id"),
                row.getLong("amount_cents"),
                row.getString("currency"),
                PaymentStatus.valueOf(row.getString("status")),
                Optional.ofNullable(row.getString("charge_id")),
                row.getInt("version")));
      }
    }
  }

  /**
   * Moves the payment on if it is still at the version {@code read} saw; false when someone else
   * updated it first (the caller re-reads and decides again).
   */
  boolean update(Connection tx, Payment read, PaymentStatus status, String chargeId, String failureReason)
      throws SQLException {
    try (PreparedStatement update =
        tx.prepareStatement(
            "UPDATE payments SET status = ?, charge_id = ?, failure_reason = ?, version = version + 1,"
                + " updated_at = now() WHERE payment_id = ? AND version = ?")) {
      update.setString(1, status.name());
      update.setString(2, chargeId);
      update.setString(3, failureReason);
      update.setString(4, read.paymentId());
      update.setInt(5, read.version());
      return update.executeUpdate() == 1;
    }
  }
}
