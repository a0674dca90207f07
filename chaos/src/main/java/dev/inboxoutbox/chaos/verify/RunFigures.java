package dev.inboxoutbox.chaos.verify;

import dev.inboxoutbox.chaos.fault.FaultLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * The figures a person reads after a run, computed from what the run observed: how long orders
 * stood still after each fault, where the absorbed duplicates came from, and how long an order took
 * from being sent to being settled. Every time is in milliseconds on the run's one time base (since
 * the load started); every value is a number, string, map or record of them so the JSON stays
 * readable.
 */
public final class RunFigures {

  private RunFigures() {}

  /**
   * Everything the report shows beyond the invariants.
   *
   * @param faults per fault: kind, target, start, end, time until orders moved again
   * @param duplicateSources duplicates absorbed by where they came from
   * @param duplicatesByOperation duplicates absorbed per consumer group
   * @param deadLettersByReason dead letters on every dead-letter topic, by reason
   * @param sentToPlacedMillis percentiles of order sent to order placed (the order row written)
   * @param sentToSettledMillis percentiles of order sent to order settled (paid or payment failed)
   */
  public record Summary(
      List<FaultRecovery> faults,
      Map<String, Long> duplicateSources,
      Map<String, Long> duplicatesByOperation,
      Map<String, Long> deadLettersByReason,
      Map<String, Long> sentToPlacedMillis,
      Map<String, Long> sentToSettledMillis) {}

  /**
   * Computes the summary from the run's observations; {@code loadStartedEpochMillis} puts the
   * orders' timestamps on the run's time base.
   */
  public static Summary summarise(
      List<FaultLog.Fault> faults,
      List<RunEvidence.OrderTimes> orders,
      Map<String, Long> firstSentAtEpochMillis,
      long loadStartedEpochMillis,
      Map<String, Long> duplicatesByOperation,
      long clientRetries,
      Map<String, Long> relayResendsByTopic,
      long webhookExtraDeliveries,
      Map<String, Long> deadLettersByReason) {
    long[] moves =
        orders.stream()
            .flatMapToLong(
                order ->
                    order.settledAtEpochMillis() == null
                        ? LongStream.of(order.placedAtEpochMillis())
                        : LongStream.of(order.placedAtEpochMillis(), order.settledAtEpochMillis()))
            .map(epochMillis -> epochMillis - loadStartedEpochMillis)
            .sorted()
            .toArray();
    List<Long> placed = new ArrayList<>();
    List<Long> settled = new ArrayList<>();
    for (RunEvidence.OrderTimes order : orders) {
      Long sentAt = firstSentAtEpochMillis.get(order.placedBy());
      if (sentAt == null) {
        continue; // not an order of this run's load: the verifier reports it
      }
      // Clamped at 0: the database's now() is its transaction's start, which may precede the
      // producer's clock reading by a millisecond.
      placed.add(Math.max(0, order.placedAtEpochMillis() - sentAt));
      if (order.settledAtEpochMillis() != null) {
        settled.add(Math.max(0, order.settledAtEpochMillis() - sentAt));
      }
    }
    return new Summary(
        recoveries(faults, moves),
        duplicateSources(
            duplicatesByOperation, clientRetries, relayResendsByTopic, webhookExtraDeliveries),
        duplicatesByOperation,
        deadLettersByReason,
        percentiles(placed.stream().mapToLong(Long::longValue).toArray()),
        percentiles(settled.stream().mapToLong(Long::longValue).toArray()));
  }

  /** The consumer group that reads each relayed outbox topic. */
  static final Map<String, String> OUTBOX_TOPIC_BY_OPERATION =
      Map.of(
          "order-payments", "outbox.event.payment-result",
          "payment-requests", "outbox.event.payment",
          "payment-charger", "outbox.event.charge",
          "payment-refunder", "outbox.event.refund");

  static final String CLIENT_OPERATION = "order-commands";
  public static final String WEBHOOK_OPERATION = "payment-webhooks";

  /**
   * Per fault: its kind, target, start and end, and the time from its end until an order moved
   * again (was placed or settled), or null when none moved after it (the run had nothing left to
   * move). {@code orderMovesMillis} must be sorted.
   */
  static List<FaultRecovery> recoveries(List<FaultLog.Fault> faults, long[] orderMovesMillis) {
    return faults.stream()
        .map(
            fault ->
                new FaultRecovery(
                    fault.kind(),
                    fault.target(),
                    fault.startMillis(),
                    fault.endMillis().orElse(null),
                    fault
                        .endMillis()
                        .map(end -> firstAtOrAfter(orderMovesMillis, end))
                        .orElse(null)))
        .toList();
  }

  private static Long firstAtOrAfter(long[] sorted, long at) {
    int index = Arrays.binarySearch(sorted, at);
    int first = index >= 0 ? index : -index - 1;
    // binarySearch finds any of equal values: step back to the first of them
    while (first > 0 && first < sorted.length && sorted[first - 1] == at) {
      first--;
    }
    return first < sorted.length ? sorted[first] - at : null;
  }

  /**
   * Nearest-rank percentiles (p50, p90, p99, max) and the count of {@code values}, in whatever unit
   * they come in; an empty input gives only the count 0.
   */
  static Map<String, Long> percentiles(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    Map<String, Long> figures = new LinkedHashMap<>();
    figures.put("count", (long) sorted.length);
    if (sorted.length == 0) {
      return figures;
    }
    figures.put("p50", rank(sorted, 50));
    figures.put("p90", rank(sorted, 90));
    figures.put("p99", rank(sorted, 99));
    figures.put("max", sorted[sorted.length - 1]);
    return figures;
  }

  private static long rank(long[] sorted, int percentile) {
    int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /**
   * Splits the duplicate claims the inboxes absorbed by where each repeat came from. What the run
   * itself repeated is known: the client retries the load producer sent, the records the relay
   * published twice (same event id on a topic), the webhook copies the provider delivered beyond
   * the first. Each consumer group's duplicates are attributed to its known source first, up to the
   * number that source produced; what is left was delivered again by Kafka (a consumer that died
   * before it committed its offsets).
   *
   * @param duplicatesByOperation duplicate claims per consumer group
   * @param clientRetries retries the load producer sent (same key, same order)
   * @param relayResendsByTopic records per outbox topic beyond one per event id
   * @param webhookExtraDeliveries webhook deliveries the services accepted beyond one per event
   */
  static Map<String, Long> duplicateSources(
      Map<String, Long> duplicatesByOperation,
      long clientRetries,
      Map<String, Long> relayResendsByTopic,
      long webhookExtraDeliveries) {
    long client = 0;
    long relay = 0;
    long webhook = 0;
    long kafka = 0;
    for (Map.Entry<String, Long> entry : duplicatesByOperation.entrySet()) {
      String operation = entry.getKey();
      long duplicates = entry.getValue();
      long known;
      if (operation.equals(CLIENT_OPERATION)) {
        known = Math.min(duplicates, clientRetries);
        client += known;
      } else if (operation.equals(WEBHOOK_OPERATION)) {
        known = Math.min(duplicates, Math.max(0, webhookExtraDeliveries));
        webhook += known;
      } else if (OUTBOX_TOPIC_BY_OPERATION.containsKey(operation)) {
        known =
            Math.min(
                duplicates,
                relayResendsByTopic.getOrDefault(OUTBOX_TOPIC_BY_OPERATION.get(operation), 0L));
        relay += known;
      } else {
        known = 0;
      }
      kafka += duplicates - known;
    }
    Map<String, Long> sources = new LinkedHashMap<>();
    sources.put("total", client + relay + webhook + kafka);
    sources.put("clientRetry", client);
    sources.put("kafkaRedelivery", kafka);
    sources.put("relayResend", relay);
    sources.put("webhookDuplicate", webhook);
    return sources;
  }
}
