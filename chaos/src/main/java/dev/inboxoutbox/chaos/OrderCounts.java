package dev.inboxoutbox.chaos;

import java.sql.SQLException;

/**
 * Orders placed and settled (paid or payment failed), as one sample of the orders database read
 * them.
 *
 * @param orders rows in the orders table
 * @param settled orders paid or whose payment failed
 */
record OrderCounts(Long orders, Long settled) {

  /** The query behind a sample; throws when the database cannot answer. */
  @FunctionalInterface
  interface Query {
    OrderCounts run() throws SQLException;
  }

  /** One sample: what {@code query} answers, -1 for each count when the database cannot answer. */
  static OrderCounts read(Query query) {
    try {
      return query.run();
    } catch (SQLException unreachable) {
      return new OrderCounts(-1L, -1L);
    }
  }
}
