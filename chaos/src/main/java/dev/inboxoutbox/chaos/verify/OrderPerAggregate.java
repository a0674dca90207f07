package dev.inboxoutbox.chaos.verify;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Order per aggregate, held against the outbox's commit order: each aggregate's events, first
 * copies only (repeats are at-least-once and allowed), must reach Kafka in the order their
 * transactions committed.
 *
 * <p>The commit order of an order's events is its state machine's: every event after {@code
 * OrderPlaced} comes from a transaction that moves the order row out of the state the previous
 * event's transaction committed ({@code PLACED} to paid, payment failed or cancelled; payment
 * failed to cancelled), so no later event can commit before an earlier one.
 */
final class OrderPerAggregate {

  /** An order event's place in its aggregate's commit order. */
  static final Map<String, Integer> ORDER_EVENT_STEP =
      Map.of(
          "OrderPlaced", 0,
          "OrderPaid", 1,
          "OrderPaymentFailed", 1,
          "OrderCancelled", 2);

  private OrderPerAggregate() {}

  /** One relayed record, as read from its partition in offset order. */
  record Relayed(String aggregateId, String eventId, String type) {}

  /** What the check found: aggregates seen, aggregates out of order, one example. */
  record Finding(long aggregates, long outOfOrder, String example) {}

  /**
   * Checks the first copy of each event per aggregate against {@code steps}. Records of one
   * aggregate share a key and so a partition: {@code relayed} lists each partition in offset order.
   * Types without a step are not ordered against the others.
   */
  static Finding check(List<Relayed> relayed, Map<String, Integer> steps) {
    Set<String> seen = new HashSet<>();
    Map<String, List<String>> firstCopies = new LinkedHashMap<>();
    for (Relayed record : relayed) {
      if (seen.add(record.eventId())) {
        firstCopies
            .computeIfAbsent(record.aggregateId(), id -> new ArrayList<>())
            .add(record.type());
      }
    }
    long outOfOrder = 0;
    String example = "";
    for (Map.Entry<String, List<String>> aggregate : firstCopies.entrySet()) {
      if (!inSteps(aggregate.getValue(), steps)) {
        outOfOrder++;
        if (example.isEmpty()) {
          example =
              "; e.g. " + aggregate.getKey() + ": " + String.join(" -> ", aggregate.getValue());
        }
      }
    }
    return new Finding(firstCopies.size(), outOfOrder, example);
  }

  private static boolean inSteps(List<String> types, Map<String, Integer> steps) {
    int last = -1;
    for (String type : types) {
      Integer step = steps.get(type);
      if (step == null) {
        continue;
      }
      if (step <= last) {
        return false;
      }
      last = step;
    }
    return true;
  }

  /**
   * Cancellations applied before the order they name: the load sends each CancelOrder right behind
   * its PlaceOrder in the same partition, so a cancel whose stored outcome is "no such order" while
   * that order exists was applied out of partition order.
   *
   * @param cancelToOrderKey each CancelOrder key with the PlaceOrder key it names
   * @param notFound CancelOrder keys whose stored outcome is 404 (no order)
   * @param placedKeys PlaceOrder keys that placed an order
   */
  static long cancelsBeforeTheirOrder(
      Map<String, String> cancelToOrderKey, Set<String> notFound, Set<String> placedKeys) {
    Map<String, String> misses = new HashMap<>(cancelToOrderKey);
    misses.keySet().retainAll(notFound);
    return misses.values().stream().filter(placedKeys::contains).count();
  }
}
