package dev.inboxoutbox.chaos.verify;

import dev.inboxoutbox.chaos.fault.FaultLog;

/**
 * One fault of the run and how long orders stood still after it, on the run's time base
 * (milliseconds since the load started).
 *
 * @param kind what was broken
 * @param target what it was done to, such as {@code postgres} or {@code order-consumer-1}
 * @param startMillis when it started
 * @param endMillis when it ended; null while it lasted to the end of the run
 * @param ordersMovingAgainAfterMillis from its end until an order was placed or settled; null when
 *     it did not end or no order moved after it
 */
public record FaultRecovery(
    FaultLog.Kind kind,
    String target,
    long startMillis,
    Long endMillis,
    Long ordersMovingAgainAfterMillis) {

  /**
   * Whether the database, a broker or the network was broken rather than a service process. Not
   * named as a getter, so the report's JSON does not grow a field for it.
   */
  public boolean infrastructure() {
    return kind.infrastructure();
  }
}
