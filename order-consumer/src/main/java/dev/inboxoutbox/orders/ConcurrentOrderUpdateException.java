package dev.inboxoutbox.orders;

import java.sql.SQLTransientException;

/**
 * Another transaction changed the order since it was read (optimistic version check). SQLSTATE
 * 40001 like a serialization failure, so the consumer retries the batch instead of dead-lettering.
 */
final class ConcurrentOrderUpdateException extends SQLTransientException {
  private static final long serialVersionUID = 1L;

  ConcurrentOrderUpdateException(String orderId) {
    super("order " + orderId + " changed concurrently", "40001");
  }
}
