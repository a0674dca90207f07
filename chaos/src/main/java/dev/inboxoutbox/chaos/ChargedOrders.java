package dev.inboxoutbox.chaos;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.provider.ChargeStatus;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import dev.inboxoutbox.tools.LoadProducer;
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
 * ledger has the charge. An order that is no longer placed (paid, failed or cancelled) counts too:
 * waiting longer would not make its cancel race the payment.
 */
final class ChargedOrders implements LoadProducer.Charges {

  private static final String ORDERS_PLACED_BY =
      """
      SELECT placed_by, order_id, status FROM orders WHERE placed_by = ANY (?)
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
          if (!order.getString("status").equals("PLACED")
              || charged.contains("pay-" + order.getString("order_id"))) {
            answer.add(order.getString("placed_by"));
          }
        }
      }
    }
    return answer;
  }
}
