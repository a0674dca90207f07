package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The order state machine: placed -> paid | payment failed, placed -> cancelled. Each method either
 * changes state and emits events, or throws {@link OrderRejected} having changed nothing; the
 * caller stores either as the command's outcome.
 *
 * <p>Runs in the caller's Spring transaction (the consumer batch's, or the endpoint's), whose
 * connection {@link JdbcClient} takes: the state change, the events and the inbox claim commit or
 * roll back together.
 */
final class Orders {

  /**
   * The stock rows are locked in sku order, so two orders never deadlock. Other batches wait on
   * these rows until this batch commits: one statement per step keeps the round trips, and so the
   * time they are held, short.
   */
  private static final String LOCK_STOCK =
      """
      SELECT sku, available FROM stock WHERE sku = ANY(CAST(:skus AS text[])) ORDER BY sku FOR UPDATE
      """;

  /** The order and its lines; the lines' foreign key is checked at the end of the statement. */
  private static final String INSERT_ORDER_AND_ITEMS =
      """
      WITH placed AS (
        INSERT INTO orders (order_id, placed_by, customer_id, status, total_cents)
        VALUES (:orderId, :placedBy, :customerId, 'PLACED', :totalCents)
      )
      INSERT INTO order_items (order_id, line, sku, qty, unit_price_cents)
      SELECT :orderId, item.line, item.sku, item.qty, item.unit_price_cents
        FROM unnest(CAST(:skus AS text[]), CAST(:qtys AS int[]), CAST(:unitPrices AS bigint[]))
             WITH ORDINALITY AS item(sku, qty, unit_price_cents, line)
      """;

  private static final String RESERVE_STOCK =
      """
      WITH wanted AS (
        SELECT * FROM unnest(CAST(:skus AS text[]), CAST(:qtys AS int[])) AS wanted(sku, qty)
      ), reserved AS (
        UPDATE stock s SET available = s.available - wanted.qty FROM wanted
        WHERE s.sku = wanted.sku
      )
      INSERT INTO stock_reservations (order_id, sku, qty) SELECT :orderId, sku, qty FROM wanted
      """;

  private static final String FIND_ORDER =
      """
      SELECT status, version, customer_id, total_cents FROM orders WHERE order_id = :orderId
      """;

  /** Optimistic: names the version read, so a concurrent change makes it update nothing. */
  private static final String TRANSITION =
      """
      UPDATE orders SET status = :status, version = version + 1, updated_at = now()
      WHERE order_id = :orderId AND version = :version
      """;

  private static final String RELEASE_STOCK =
      """
      WITH released AS (
        DELETE FROM stock_reservations WHERE order_id = :orderId RETURNING sku, qty
      )
      UPDATE stock s SET available = s.available + released.qty FROM released
      WHERE s.sku = released.sku
      """;

  private record Line(String sku, int qty, long unitPriceCents) {}

  private record OrderRow(String status, int version, String customerId, long totalCents) {}

  /** {@code OrderPlaced}, and the outcome of a PlaceOrder. */
  private record Placed(String orderId, String customerId, String status, long totalCents) {}

  /** {@code PaymentRequested}, for payment-consumer. */
  private record PaymentRequested(
      String orderId, String paymentId, String customerId, long amountCents, String currency) {}

  /** The outcome of a transition, and the payload of the event it emits. */
  private record Status(String orderId, String status) {}

  /** {@code GET /orders/{orderId}}. */
  private record View(
      String orderId, String customerId, String status, long totalCents, int version) {}

  private final JdbcClient jdbc;
  private final JsonMapper json;

  Orders(JdbcClient jdbc, JsonMapper json) {
    this.jdbc = jdbc;
    this.json = json;
  }

  /**
   * Places an order and reserves its stock; returns the outcome body. The order id is made here, as
   * in any real shop: only the inbox stops a repeated command from placing a second order.
   */
  String place(String placedBy, JsonNode command, Consumer<OutboxEvent> emit) throws OrderRejected {
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
      throw PoisonMessageException.malformed(
          "the order's quantities or total are too large to store");
    }
    String[] skus = perSku.keySet().toArray(String[]::new);
    Integer[] quantities = perSku.values().toArray(Integer[]::new);
    Map<String, Integer> available = new HashMap<>();
    jdbc.sql(LOCK_STOCK)
        .param("skus", skus)
        .query(
            (RowCallbackHandler)
                row -> available.put(row.getString("sku"), row.getInt("available")));
    for (var wanted : perSku.entrySet()) {
      Integer inStock = available.get(wanted.getKey());
      if (inStock == null) {
        throw new OrderRejected(422, "unknown_sku", "unknown sku " + wanted.getKey());
      }
      if (inStock < wanted.getValue()) {
        throw new OrderRejected(409, "out_of_stock", "out of stock: " + wanted.getKey());
      }
    }
    jdbc.sql(INSERT_ORDER_AND_ITEMS)
        .param("orderId", orderId)
        .param("placedBy", placedBy)
        .param("customerId", customerId)
        .param("totalCents", total)
        .param("skus", lines.stream().map(Line::sku).toArray(String[]::new))
        .param("qtys", lines.stream().map(Line::qty).toArray(Integer[]::new))
        .param("unitPrices", lines.stream().map(Line::unitPriceCents).toArray(Long[]::new))
        .update();
    jdbc.sql(RESERVE_STOCK)
        .param("orderId", orderId)
        .param("skus", skus)
        .param("qtys", quantities)
        .update();
    String placed = json.writeValueAsString(new Placed(orderId, customerId, "PLACED", total));
    emit.accept(OutboxEvent.of("order", orderId, "OrderPlaced", placed));
    emit.accept(
        OutboxEvent.of(
            "payment",
            orderId,
            "PaymentRequested",
            json.writeValueAsString(
                new PaymentRequested(orderId, "pay-" + orderId, customerId, total, "EUR"))));
    return placed;
  }

  /** Cancels a placed order and releases its stock; a repeat on a cancelled order is a no-op. */
  String cancel(JsonNode command, Consumer<OutboxEvent> emit)
      throws OrderRejected, ConcurrentOrderUpdateException {
    String orderId = text(command, "orderId");
    OrderRow order =
        find(orderId)
            .orElseThrow(() -> new OrderRejected(404, "unknown_order", "no order " + orderId));
    switch (order.status()) {
      case "CANCELLED":
        return status(orderId, "CANCELLED");
      case "PAID":
        throw new OrderRejected(409, "cancel_after_paid", "order " + orderId + " is already paid");
      default:
        break;
    }
    transition(orderId, order.version(), "CANCELLED");
    if (!order.status().equals("PAYMENT_FAILED")) {
      releaseStock(orderId);
    }
    String cancelled = status(orderId, "CANCELLED");
    emit.accept(OutboxEvent.of("order", orderId, "OrderCancelled", cancelled));
    return cancelled;
  }

  /** Applies PaymentCaptured / PaymentFailed from payment-consumer. */
  String paymentResult(String type, JsonNode event, Consumer<OutboxEvent> emit)
      throws OrderRejected, ConcurrentOrderUpdateException {
    String orderId = text(event, "orderId");
    OrderRow order =
        find(orderId)
            .orElseThrow(() -> new OrderRejected(404, "unknown_order", "no order " + orderId));
    boolean captured = type.equals("PaymentCaptured");
    String target = captured ? "PAID" : "PAYMENT_FAILED";
    if (order.status().equals(target)) {
      return status(orderId, target);
    }
    if (!order.status().equals("PLACED")) {
      throw new OrderRejected(
          409,
          captured
              ? "pay_after_" + order.status().toLowerCase()
              : "failed_after_" + order.status().toLowerCase(),
          "order " + orderId + " is " + order.status() + "; " + type + " not applied");
    }
    transition(orderId, order.version(), target);
    if (!captured) {
      releaseStock(orderId);
    }
    String result = status(orderId, target);
    emit.accept(
        OutboxEvent.of("order", orderId, captured ? "OrderPaid" : "OrderPaymentFailed", result));
    return result;
  }

  Optional<String> describe(String orderId) {
    return find(orderId)
        .map(
            o ->
                json.writeValueAsString(
                    new View(orderId, o.customerId(), o.status(), o.totalCents(), o.version())));
  }

  private void transition(String orderId, int version, String status)
      throws ConcurrentOrderUpdateException {
    int updated =
        jdbc.sql(TRANSITION)
            .param("status", status)
            .param("orderId", orderId)
            .param("version", version)
            .update();
    if (updated != 1) {
      throw new ConcurrentOrderUpdateException(orderId);
    }
  }

  private void releaseStock(String orderId) {
    jdbc.sql(RELEASE_STOCK).param("orderId", orderId).update();
  }

  private Optional<OrderRow> find(String orderId) {
    return jdbc.sql(FIND_ORDER)
        .param("orderId", orderId)
        .query(
            (row, n) ->
                new OrderRow(row.getString(1), row.getInt(2), row.getString(3), row.getLong(4)))
        .optional();
  }

  private String status(String orderId, String status) {
    return json.writeValueAsString(new Status(orderId, status));
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
      long unitPriceCents =
          wholeNumber(item, "unitPriceCents", field + "unitPriceCents", 0, Long.MAX_VALUE);
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
    if (value == null
        || !value.isIntegralNumber()
        || !value.canConvertToLong()
        || value.asLong() < min
        || value.asLong() > max) {
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
    if (value == null
        || !value.isString()
        || value.asString().isBlank()
        || value.asString().length() > 200) {
      throw PoisonMessageException.malformed("field " + field + " must be a non-blank string");
    }
    return value.asString();
  }
}
