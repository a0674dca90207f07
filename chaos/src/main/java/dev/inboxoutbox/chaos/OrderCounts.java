package dev.inboxoutbox.chaos;

import java.sql.SQLException;

/**
 * Orders placed and settled (paid or payment failed), as one sample of the orders database read
 * them; all null when the database could not answer (down, or unreachable).
 *
 * @param orders rows in the orders table, or null
 * @param settled orders paid or whose payment failed, or null
 * @param rejected commands the order service rejected (an order out of stock, a cancel it could not
 *     apply): they never become an order to settle; or null
 */
record OrderCounts(Long orders, Long settled, Long rejected) {

  /** The query behind a sample; throws when the database cannot answer. */
  @FunctionalInterface
  interface Query {
    OrderCounts run() throws SQLException;
  }

  /** No count could be read. */
  static final OrderCounts UNKNOWN = new OrderCounts(null, null, null);

  /**
   * Orders out of the pipeline: settled, or rejected by the order service; 0 when unknown, so that
   * everything sent counts as in flight.
   */
  long drained() {
    return settled == null ? 0 : settled + (rejected == null ? 0 : rejected);
  }

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
