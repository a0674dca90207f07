package dev.inboxoutbox.orders;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The order state machine, inside the caller's transaction: placed -> paid | payment failed, placed
 * -> cancelled. Each method either changes state and emits events, or throws {@link OrderRejected}
 * having changed nothing; the caller stores either as the command's outcome.
 */
final class Orders {

  private record Line(String sku, int qty, long unitPriceCents) {}

  private record OrderRow(String status, int version, String customerId, long totalCents) {}

  /**
   * Places an order and reserves its stock; returns the outcome body. The order id is made here,
   * as in any real shop: only the inbox stops a repeated command from placing a second order.
   */
  String place(Connection tx, String placedBy, JsonNode command, Consumer<OutboxEvent> emit)
      throws SQLException, OrderRejected {
    String orderId = "o-" + UUID.randomUUID();
    String customerId = text(command, "customerId");
    List<Line> lines = lines(command);
    TreeMap<String, Integer> perSku = new TreeMap<>();
    long total = 0;
    try {
      for (Line line : lines) {
        perSku.merge(line.sku(), line.qty(), Math::addExact);
        total = Math.addExact(total, Math.multiplyExact(line.qty(), line.unitPriceCents()));
      }
    } catch (ArithmeticException overflow) {
      throw PoisonMessageException.malformed("the order's quantities or total are too large to store");
    }
    // Lock the stock rows in sku order (no deadlocks between orders), check all, then reserve all.
    for (var wanted : perSku.entrySet()) {
      try (PreparedStatement lock =
          tx.prepareStatement("SELECT available FROM stock WHERE sku = ? FOR UPDATE")) {
        lock.setString(1, wanted.getKey());
        try (ResultSet row = lock.executeQuery()) {
          if (!row.next()) {
            throw new OrderRejected(422, "unknown_sku", "unknown sku " + wanted.getKey());
          }
          if (row.getInt(1) < wanted.getValue()) {
            throw new OrderRejected(409, "out_of_stock", "out of stock: " + wanted.getKey());
          }
        }
      }
    }
    try (PreparedStatement insert =
        tx.prepareStatement(
            "INSERT INTO orders (order_id, placed_by, customer_id, status, total_cents)"
                + " VALUES (?, ?, ?, 'PLACED', ?)")) {
      insert.setString(1, orderId);
      insert.setString(2, placedBy);
      insert.setString(3, customerId);
      insert.setLong(4, total);
      insert.executeUpdate();
    }
    try (PreparedStatement item =
        tx.prepareStatement(
            "INSERT INTO order_items (order_id, line, sku, qty, unit_price_cents) VALUES (?, ?, ?, ?, ?)")) {
      for (int i = 0; i < lines.size(); i++) {
        item.setString(1, orderId);
        item.setInt(2, i + 1);
        item.setString(3, lines.get(i).sku());
        item.setInt(4, lines.get(i).qty());
        item.setLong(5, lines.get(i).unitPriceCents());
        item.addBatch();
      }
      item.executeBatch();
    }
    try (PreparedStatement reserve =
            tx.prepareStatement("UPDATE stock SET available = available - ? WHERE sku = ?");
        PreparedStatement record =
            tx.prepareStatement("INSERT INTO stock_reservations (order_id, sku, qty) VALUES (?, ?, ?)")) {
      for (var wanted : perSku.entrySet()) {
        reserve.setInt(1, wanted.getValue());
        reserve.setString(2, wanted.getKey());
        reserve.addBatch();
        record.setString(1, orderId);
        record.setString(2, wanted.getKey());
        record.setInt(3, wanted.getValue());
        record.addBatch();
      }
      reserve.executeBatch();
      record.executeBatch();
    }
    String placed =
        "{\"orderId\":" + quote(orderId) + ",\"customerId\":" + quote(customerId)
            + ",\"status\":\"PLACED\",\"totalCents\":" + total + "}";
    emit.accept(OutboxEvent.of("order", orderId, "OrderPlaced", placed));
    emit.accept(
        OutboxEvent.of(
            "payment", orderId, "PaymentRequested",
            "{\"orderId\":" + quote(orderId) + ",\"paymentId\":" + quote("pay-" + orderId)
                + ",\"customerId\":" + quote(customerId) + ",\"amountCents\":" + total
                + ",\"currency\":\"EUR\"}"));
    return placed;
  }

  /** Cancels a placed order and releases its stock; a repeat on a cancelled order is a no-op. */
  String cancel(Connection tx, JsonNode command, Consumer<OutboxEvent> emit) throws SQLException, OrderRejected {
    String orderId = text(command, "orderId");
    OrderRow order = find(tx, orderId)
        .orElseThrow(() -> new OrderRejected(404, "unknown_order", "no order " + orderId));
    switch (order.status()) {
      case "CANCELLED":
        return status(orderId, "CANCELLED");
      case "PAID":
        throw new OrderRejected(409, "cancel_after_paid", "order " + orderId + " is already paid");
      default:
        break;
    }
    transition(tx, orderId, order.version(), "CANCELLED");
    if (!order.status().equals("PAYMENT_FAILED")) {
      releaseStock(tx, orderId);
    }
    String cancelled = status(orderId, "CANCELLED");
    emit.accept(OutboxEvent.of("order", orderId, "OrderCancelled", cancelled));
    return cancelled;
  }

  /** Applies PaymentCaptured / PaymentFailed from payment-consumer. */
  String paymentResult(Connection tx, String type, JsonNode event, Consumer<OutboxEvent> emit)
      throws SQLException, OrderRejected {
    String orderId = text(event, "orderId");
    OrderRow order = find(tx, orderId)
        .orElseThrow(() -> new OrderRejected(404, "unknown_order", "no order " + orderId));
    boolean captured = type.equals("PaymentCaptured");
    String target = captured ? "PAID" : "PAYMENT_FAILED";
    if (order.status().equals(target)) {
      return status(orderId, target);
    }
    if (!order.status().equals("PLACED")) {
      throw new OrderRejected(
          409, captured ? "pay_after_" + order.status().toLowerCase() : "failed_after_" + order.status().toLowerCase(),
          "order " + orderId + " is " + order.status() + "; " + type + " not applied");
    }
    transition(tx, orderId, order.version(), target);
    if (!captured) {
      releaseStock(tx, orderId);
    }
    String result = status(orderId, target);
    emit.accept(OutboxEvent.of("order", orderId, captured ? "OrderPaid" : "OrderPaymentFailed", result));
    return result;
  }

  Optional<String> describe(Connection connection, String orderId) throws SQLException {
    return find(connection, orderId)
        .map(o -> "{\"orderId\":" + quote(orderId) + ",\"customerId\":" + quote(o.customerId())
            + ",\"status\":" + quote(o.status()) + ",\"totalCents\":" + o.totalCents()
            + ",\"version\":" + o.version() + "}");
  }

  private static void transition(Connection tx, String orderId, int version, String status) throws SQLException {
    try (PreparedStatement update =
        tx.prepareStatement(
            "UPDATE orders SET status = ?, version = version + 1, updated_at = now()"
                + " WHERE order_id = ? AND version = ?")) {
      update.setString(1, status);
      update.setString(2, orderId);
      update.setInt(3, version);
      if (update.executeUpdate() != 1) {
        throw new ConcurrentOrderUpdateException(orderId);
      }
    }
  }

  private static void releaseStock(Connection tx, String orderId) throws SQLException {
    try (PreparedStatement release =
            tx.prepareStatement(
                "UPDATE stock s SET available = s.available + r.qty FROM stock_reservations r"
                    + " WHERE r.order_id = ? AND r.sku = s.sku");
        PreparedStatement forget = tx.prepareStatement("DELETE FROM stock_reservations WHERE order_id = ?")) {
      release.setString(1, orderId);
      release.executeUpdate();
      forget.setString(1, orderId);
      forget.executeUpdate();
    }
  }

  private static Optional<OrderRow> find(Connection connection, String orderId) throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT status, version, customer_id, total_cents FROM orders WHERE order_id = ?")) {
      query.setString(1, orderId);
      try (ResultSet row = query.executeQuery()) {
        return row.next()
            ? Optional.of(new OrderRow(row.getString(1), row.getInt(2), row.getString(3), row.getLong(4)))
            : Optional.empty();
      }
    }
  }

  private static List<Line> lines(JsonNode command) {
    JsonNode items = command.get("items");
    if (items == null || !items.isArray() || items.isEmpty()) {
      throw PoisonMessageException.malformed("PlaceOrder needs a non-empty items array");
    }
    List<Line> lines = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      String field = "items[" + i + "].";
      String sku = text(item, "sku", field + "sku");
      long qty = wholeNumber(item, "qty", field + "qty", 1, Integer.MAX_VALUE);
      long unitPriceCents = wholeNumber(item, "unitPriceCents", field + "unitPriceCents", 0, Long.MAX_VALUE);
      lines.add(new Line(sku, (int) qty, unitPriceCents));
    }
    return lines;
  }

  /**
   * A JSON integer within bounds. Fractions are refused, not truncated: 1.5 units or 100.7 cents
   * cannot be stored, and rounding would apply a different order from the one sent.
   */
  private static long wholeNumber(JsonNode node, String name, String field, long min, long max) {
    JsonNode value = node == null ? null : node.get(name);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()
        || value.asLong() < min || value.asLong() > max) {
      throw PoisonMessageException.malformed(
          "field " + field + " must be a whole number from " + min + " to " + max);
    }
    return value.asLong();
  }

  private static String text(JsonNode node, String field) {
    return text(node, field, field);
  }

  private static String text(JsonNode node, String name, String field) {
    JsonNode value = node == null ? null : node.get(name);
    if (value == null || !value.isTextual() || value.asText().isBlank() || value.asText().length() > 200) {
      throw PoisonMessageException.malformed("field " + field + " must be a non-blank string");
    }
    return value.asText();
  }

  private static String status(String orderId, String status) {
    return "{\"orderId\":" + quote(orderId) + ",\"status\":" + quote(status) + "}";
  }

  static String quote(String text) {
    StringBuilder quoted = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        quoted.append('\\').append(c);
      } else if (c < 0x20) {
        quoted.append(String.format("\\u%04x", (int) c));
      } else {
        quoted.append(c);
      }
    }
    return quoted.append('"').toString();
  }
}
