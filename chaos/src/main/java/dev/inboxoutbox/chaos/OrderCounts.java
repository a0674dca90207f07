package dev.inboxoutbox.chaos;

import java.sql.SQLException;

/**
 * Orders placed and settled (paid or payment failed), as one sample of the orders database read
 * them; both null when the database could not answer (down, or unreachable).
 *
 * @param orders rows in the orders table, or null
 * @param settled orders paid or whose payment failed, or null
 */
record OrderCounts(Long orders, Long settled) {

  /** The query behind a sample; throws when the database cannot answer. */
  @FunctionalInterface
  interface Query {
    OrderCounts run() throws SQLException;
  }

  /** Neither count could be read. */
  static final OrderCounts UNKNOWN = new OrderCounts(null, null);

  /**
   * One sample: what {@code query} answers, or {@link #UNKNOWN} when the database cannot answer. A
   * stand-in number (-1, 0) would read as orders that vanished.
   */
  static OrderCounts read(Query query) {
    try {
      return query.run();
    } catch (SQLException unreachable) {
      return UNKNOWN;
    }
  }
}
