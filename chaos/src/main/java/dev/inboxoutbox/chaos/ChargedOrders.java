package dev.inboxoutbox.chaos;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.orders.load.LoadProducer;
import dev.inboxoutbox.provider.ChargeStatus;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which orders the provider has charged, for the load's cancels that wait for the charge: the order
 * service names an order's payment {@code "pay-" + orderId} (docs/flows.md), and the provider's
 * ledger has the charge. An order no longer placed (paid, failed or cancelled) counts too, and so
 * does a PlaceOrder the order service refused (out of stock, a conflict): waiting longer would not
 * make their cancels race a payment.
 */
final class ChargedOrders implements LoadProducer.Charges {

  /**
   * Each key with its orders (several, or one with a suffixed key, under the no-dedup control) and
   * whether the order service refused it.
   */
  private static final String ORDERS_PLACED_BY =
      """
      SELECT k.placed_by, o.order_id, o.status,
             EXISTS (SELECT FROM inbox i
                      WHERE i.operation = 'order-commands' AND i.idempotency_key = k.placed_by
                        AND i.status = 'FAILED') AS refused
        FROM unnest(CAST(? AS text[])) AS k (placed_by)
        LEFT JOIN orders o ON split_part(o.placed_by, '~', 1) = k.placed_by
      """;

  private final Database ordersDb;
  private final PaymentProviderSimulator provider;

  ChargedOrders(Database ordersDb, PaymentProviderSimulator provider) {
    this.ordersDb = ordersDb;
    this.provider = provider;
  }

  @Override
  public Set<String> chargedAmong(Collection<String> placeKeys) throws SQLException {
    Set<String> charged =
        provider.ledger().stream()
            .filter(charge -> charge.status() == ChargeStatus.SUCCEEDED)
            .map(LedgerEntry::paymentId)
            .collect(Collectors.toSet());
    Set<String> answer = new HashSet<>();
    try (Connection connection = ordersDb.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(ORDERS_PLACED_BY)) {
      query.setArray(1, connection.createArrayOf("text", placeKeys.toArray()));
      try (ResultSet order = query.executeQuery()) {
        while (order.next()) {
          String orderId = order.getString("order_id");
          boolean due =
              orderId == null
                  ? order.getBoolean("refused")
                  : !order.getString("status").equals("PLACED")
                      || charged.contains("pay-" + orderId);
          if (due) {
            answer.add(order.getString("placed_by"));
          }
        }
      }
    }
    return answer;
  }
}
