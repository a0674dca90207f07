package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.outbox.OutboxEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The order state machine: placed -> paid | payment failed, placed -> cancelled (which calls the
 * payment off). Each method either changes state and emits events, or throws {@link OrderRejected}
 * having changed nothing; the caller stores either as the command's outcome.
 *
 * <p>Runs in the caller's Spring transaction (the consumer batch's, or the endpoint's), whose
 * connection {@link JdbcClient} takes: the state change, the events and the inbox claim commit or
 * roll back together.
 */
final class Orders {

  /**
   * Every stock row a consumer batch will update, locked in sku order before its first message: a
   * batch holds its locks until it commits, so two batches locking order by order (each in sku
   * order) would take the same rows in different orders and deadlock.
   */
  private static final String LOCK_BATCH_STOCK =
      """
      SELECT sku, available FROM stock
      WHERE sku = ANY(CAST(:skus AS text[]))
         OR sku IN (SELECT sku FROM stock_reservations
                    WHERE order_id = ANY(CAST(:releasedOrderIds AS text[])))
         OR sku IN (SELECT r.sku FROM stock_reservations r JOIN orders o USING (order_id)
                    WHERE o.placed_by = ANY(CAST(:releasedPlacedBy AS text[])))
      ORDER BY sku FOR UPDATE
      """;

  /**
   * An order's stock rows, locked in sku order, when no consumer batch locked them first (an order
   * placed over HTTP). Other transactions wait on these rows until this one commits: one statement
   * per step keeps the round trips, and so the time they are held, short.
   */
  private static final String LOCK_STOCK =
      """
      SELECT sku, available FROM stock WHERE sku = ANY(CAST(:skus AS text[])) ORDER BY sku FOR UPDATE
      """;

  /**
   * The order, its lines and its stock reservations in one round trip, while the stock rows are
   * locked; returns what is left on each. Foreign keys are checked at the end of the statement,
   * when the order row exists.
   */
  private static final String INSERT_ORDER_AND_RESERVE_STOCK =
      """
      WITH placed AS (
        INSERT INTO orders (order_id, placed_by, customer_id, status, total_cents)
        VALUES (:orderId, :placedBy, :customerId, 'PLACED', :totalCents)
      ), items AS (
        INSERT INTO order_items (order_id, line, sku, qty, unit_price_cents)
        SELECT :orderId, item.line, item.sku, item.qty, item.unit_price_cents
          FROM unnest(CAST(:lineSkus AS text[]), CAST(:lineQtys AS int[]),
                      CAST(:unitPrices AS bigint[]))
               WITH ORDINALITY AS item(sku, qty, unit_price_cents, line)
      ), wanted AS (
        SELECT * FROM unnest(CAST(:skus AS text[]), CAST(:qtys AS int[])) AS wanted(sku, qty)
      ), reservations AS (
        INSERT INTO stock_reservations (order_id, sku, qty) SELECT :orderId, sku, qty FROM wanted
      ), reserved AS (
        UPDATE stock s SET available = s.available - wanted.qty FROM wanted
        WHERE s.sku = wanted.sku
        RETURNING s.sku, s.available
      )
      SELECT sku, available FROM reserved
      """;

  private static final String FIND_ORDER =
      """
      SELECT status, version, customer_id, total_cents FROM orders WHERE order_id = :orderId
      """;

  private static final String FIND_ORDER_PLACED_BY =
      """
      SELECT order_id FROM orders WHERE placed_by = :placedBy
      """;

  /** Optimistic: names the version read, so a concurrent change makes it update nothing. */
  private static final String TRANSITION =
      """
      UPDATE orders SET status = :status, version = version + 1, updated_at = now()
      WHERE order_id = :orderId AND version = :version
      """;

  /**
   * A placed order's payment result, in one round trip for the usual case; an order in any other
   * state (or none) updates nothing and is read to tell a repeat from a rejection.
   */
  private static final String SETTLE =
      """
      UPDATE orders SET status = :status, version = version + 1, updated_at = now()
      WHERE order_id = :orderId AND status = 'PLACED'
      """;

  private static final String RELEASE_STOCK =
      """
      WITH released AS (
        DELETE FROM stock_reservations WHERE order_id = :orderId RETURNING sku, qty
      )
      UPDATE stock s SET available = s.available + released.qty FROM released
      WHERE s.sku = released.sku
      RETURNING s.sku, s.available
      """;

  private record OrderRow(String status, int version, String customerId, long totalCents) {}

  /** {@code OrderPlaced}, and the outcome of a PlaceOrder. */
  private record Placed(String orderId, String customerId, String status, long totalCents) {}

  /** {@code PaymentRequested}, for payment-consumer. */
  private record PaymentRequested(
      String orderId, String paymentId, String customerId, long amountCents, String currency) {}

  /**
   * {@code PaymentCancelRequested}, for payment-consumer: the payment of a cancelled order is
   * called off (never charged, or refunded). It carries the whole payment, so payment-consumer can
   * record the cancel even for a payment it has not seen yet.
   */
  private record PaymentCancelRequested(
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
  String place(String placedBy, JsonNode command, Consumer<List<OutboxEvent>> emit)
      throws OrderRejected {
    String orderId = "o-" + UUID.randomUUID();
    PlaceOrder order = PlaceOrder.parse(command);
    String customerId = order.customerId();
    List<PlaceOrder.Line> lines = order.lines();
    TreeMap<String, Integer> perSku = new TreeMap<>();
    long total = 0;
    try {
      for (PlaceOrder.Line line : lines) {
        perSku.merge(line.sku(), line.qty(), Math::addExact);
        total = Math.addExact(total, Math.multiplyExact(line.qty(), line.unitPriceCents()));
      }
    } catch (ArithmeticException overflow) {
      throw PoisonMessageException.malformed(
          "the order's quantities or total are too large to store");
    }
    String[] skus = perSku.keySet().toArray(String[]::new);
    Integer[] quantities = perSku.values().toArray(Integer[]::new);
    Map<String, Integer> available =
        lockedByBatch(perSku.keySet()).orElseGet(() -> lockOwnStock(skus));
    for (var wanted : perSku.entrySet()) {
      Integer inStock = available.get(wanted.getKey());
      if (inStock == null) {
        throw new OrderRejected(422, "unknown_sku", "unknown sku " + wanted.getKey());
      }
      if (inStock < wanted.getValue()) {
        throw new OrderRejected(409, "out_of_stock", "out of stock: " + wanted.getKey());
      }
    }
    jdbc.sql(INSERT_ORDER_AND_RESERVE_STOCK)
        .param("orderId", orderId)
        .param("placedBy", placedBy)
        .param("customerId", customerId)
        .param("totalCents", total)
        .param("lineSkus", lines.stream().map(PlaceOrder.Line::sku).toArray(String[]::new))
        .param("lineQtys", lines.stream().map(PlaceOrder.Line::qty).toArray(Integer[]::new))
        .param(
            "unitPrices", lines.stream().map(PlaceOrder.Line::unitPriceCents).toArray(Long[]::new))
        .param("skus", skus)
        .param("qtys", quantities)
        .query(availableInto(available));
    String placed = json.writeValueAsString(new Placed(orderId, customerId, "PLACED", total));
    // Both events in one outbox insert: one round trip while the stock rows are locked.
    emit.accept(
        List.of(
            OutboxEvent.of("order", orderId, "OrderPlaced", placed),
            OutboxEvent.of(
                "payment",
                orderId,
                "PaymentRequested",
                json.writeValueAsString(
                    new PaymentRequested(orderId, "pay-" + orderId, customerId, total, "EUR")))));
    return placed;
  }

  /**
   * Cancels a placed order and releases its stock; a repeat on a cancelled order is a no-op. The
   * command names the order by {@code orderId}, or by {@code placedBy}, the key of the PlaceOrder
   * command that placed it (a client that placed over Kafka never saw the order id).
   */
  String cancel(JsonNode command, Consumer<List<OutboxEvent>> emit)
      throws OrderRejected, ConcurrentOrderUpdateException {
    String orderId = cancelledOrderId(command);
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
    OutboxEvent orderCancelled = OutboxEvent.of("order", orderId, "OrderCancelled", cancelled);
    if (order.status().equals("PAYMENT_FAILED")) {
      emit.accept(List.of(orderCancelled));
      return cancelled;
    }
    // A placed order's payment may be charged already, or about to be: its PaymentRequested is in
    // the outbox. Calling it off on the same topic with the same key (aggregatetype "payment",
    // the order id) puts the cancel behind the request in its partition, so payment-consumer
    // reads them in that order and either never charges or refunds.
    emit.accept(
        List.of(
            orderCancelled,
            OutboxEvent.of(
                "payment",
                orderId,
                "PaymentCancelRequested",
                json.writeValueAsString(
                    new PaymentCancelRequested(
                        orderId,
                        "pay-" + orderId,
                        order.customerId(),
                        order.totalCents(),
                        "EUR")))));
    return cancelled;
  }

  private String cancelledOrderId(JsonNode command) throws OrderRejected {
    if (command != null && command.has("orderId")) {
      return CommandFields.text(command, "orderId");
    }
    if (command == null || !command.has("placedBy")) {
      throw PoisonMessageException.malformed("a CancelOrder names orderId or placedBy");
    }
    String placedBy = CommandFields.text(command, "placedBy");
    return jdbc.sql(FIND_ORDER_PLACED_BY)
        .param("placedBy", placedBy)
        .query(String.class)
        .optional()
        .orElseThrow(
            () ->
                new OrderRejected(404, "unknown_order", "no order placed by command " + placedBy));
  }

  /** Applies PaymentCaptured / PaymentFailed from payment-consumer. */
  void paymentResult(String type, JsonNode event, Consumer<List<OutboxEvent>> emit)
      throws OrderRejected {
    String orderId = CommandFields.text(event, "orderId");
    boolean captured = type.equals("PaymentCaptured");
    String target = captured ? "PAID" : "PAYMENT_FAILED";
    if (jdbc.sql(SETTLE).param("status", target).param("orderId", orderId).update() == 0) {
      OrderRow order =
          find(orderId)
              .orElseThrow(() -> new OrderRejected(404, "unknown_order", "no order " + orderId));
      if (order.status().equals(target)) {
        return;
      }
      throw new OrderRejected(
          409,
          captured
              ? "pay_after_" + order.status().toLowerCase()
              : "failed_after_" + order.status().toLowerCase(),
          "order " + orderId + " is " + order.status() + "; " + type + " not applied");
    }
    if (!captured) {
      releaseStock(orderId);
    }
    emit.accept(
        List.of(
            OutboxEvent.of(
                "order",
                orderId,
                captured ? "OrderPaid" : "OrderPaymentFailed",
                status(orderId, target))));
  }

  /**
   * Locks, in sku order, the stock rows that placing orders for {@code skus} and releasing the
   * reservations of {@code releasedOrderIds} will update.
   */
  void lockStock(List<String> skus, List<String> releasedOrderIds, List<String> releasedPlacedBy) {
    if (skus.isEmpty() && releasedOrderIds.isEmpty() && releasedPlacedBy.isEmpty()) {
      return;
    }
    Map<String, Integer> available = new HashMap<>();
    jdbc.sql(LOCK_BATCH_STOCK)
        .param("skus", skus.toArray(String[]::new))
        .param("releasedOrderIds", releasedOrderIds.toArray(String[]::new))
        .param("releasedPlacedBy", releasedPlacedBy.toArray(String[]::new))
        .query(availableInto(available));
    LockedStock.bindToTransaction(this, new LockedStock(Set.copyOf(skus), available));
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
    Map<String, Integer> available = new HashMap<>();
    jdbc.sql(RELEASE_STOCK).param("orderId", orderId).query(availableInto(available));
    LockedStock locked = LockedStock.ofTransaction(this);
    if (locked != null) {
      locked.available().putAll(available);
    }
  }

  /**
   * What is available on {@code skus} when this transaction's batch locked them all up front, as
   * this transaction's own statements left it; empty otherwise (then the order locks its rows).
   */
  private Optional<Map<String, Integer>> lockedByBatch(Set<String> skus) {
    LockedStock locked = LockedStock.ofTransaction(this);
    return locked != null && locked.asked().containsAll(skus)
        ? Optional.of(locked.available())
        : Optional.empty();
  }

  /** Locks an order's own stock rows and returns what is available on each. */
  private Map<String, Integer> lockOwnStock(String[] skus) {
    Map<String, Integer> available = new HashMap<>();
    jdbc.sql(LOCK_STOCK).param("skus", skus).query(availableInto(available));
    return available;
  }

  private static RowCallbackHandler availableInto(Map<String, Integer> available) {
    return row -> available.put(row.getString("sku"), row.getInt("available"));
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
}
