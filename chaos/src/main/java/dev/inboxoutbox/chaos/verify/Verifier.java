package dev.inboxoutbox.chaos.verify;

import dev.inboxoutbox.orders.load.LoadProducer;
import dev.inboxoutbox.provider.LedgerEntry;
import dev.inboxoutbox.provider.RefundEntry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The oracle: after a chaos run has gone quiet, it holds the databases, the provider's ledger and
 * Kafka to what the load producer sent. Every check counts; none trusts the services' own counters.
 */
public final class Verifier {

  /**
   * The key a record was delivered with. The negative control ({@code --no-dedup}) gives every
   * delivery a key of its own, the real one plus {@code ~} and a random suffix, so that repeats
   * apply again; the checks count by the real key, and so see those repeats as double effects. Keys
   * the load and the services make never contain {@code ~}.
   */
  private static final String DELIVERED_KEY = "split_part(idempotency_key, '~', 1)";

  private static final String DELIVERED_PLACED_BY = "split_part(placed_by, '~', 1)";

  public static final List<String[]> CONSUMER_GROUPS =
      List.of(
          new String[] {"order-commands", "orders.commands"},
          new String[] {"order-payments", "outbox.event.payment-result"},
          new String[] {"payment-requests", "outbox.event.payment"},
          new String[] {"payment-charger", "outbox.event.charge"},
          new String[] {"payment-refunder", "outbox.event.refund"});

  private static final Duration DATABASE_WAIT = Duration.ofMinutes(2);

  private static final String ORDER_EVENTS_TOPIC = "outbox.event.order";

  private final DataSource orders;
  private final DataSource payments;
  private final String bootstrap;

  public Verifier(DataSource orders, DataSource payments, String bootstrap) {
    this.orders = orders;
    this.payments = payments;
    this.bootstrap = bootstrap;
  }

  public List<Invariant> verify(
      LoadProducer.Sent sent, List<LedgerEntry> ledger, List<RefundEntry> refunds)
      throws Exception {
    awaitReachable(orders);
    awaitReachable(payments);
    List<Invariant> results = new ArrayList<>();
    results.add(loadAcknowledged(sent));
    results.add(onePerKey(sent));
    results.add(chargedOnce(ledger));
    Set<String> cancelled =
        strings(orders, "SELECT order_id FROM orders WHERE status = 'CANCELLED'");
    results.add(CancelledMoney.noCancelledOrderKeepsACapture(cancelled, ledger, refunds));
    results.add(CancelledMoney.everyRefundOnceForACapture(cancelled, ledger, refunds));
    results.add(stockConserved());
    results.add(outboxDelivered());
    results.add(noPhantomEvent());
    results.add(eventsInCommitOrder());
    results.add(commandsInPartitionOrder(sent));
    results.add(deadLettered(sent));
    results.add(nothingStuck());
    results.add(everyOrderSettled());
    results.add(caughtUp());
    return results;
  }

  /**
   * The other checks count every sent key as accepted; a send Kafka never acknowledged would show
   * up there as a key never answered, so it is named here as what it is.
   */
  static Invariant loadAcknowledged(LoadProducer.Sent sent) {
    return loadAcknowledged(sent.records(), sent.failedSends(), sent.firstFailure().orElse(null));
  }

  static Invariant loadAcknowledged(long records, long failed, String firstFailure) {
    return Invariant.of(
        "every load record acknowledged by Kafka",
        records,
        failed,
        failed == 0 ? "0 sends failed" : failed + " sends failed, the first: " + firstFailure);
  }

  private Invariant onePerKey(LoadProducer.Sent sent) throws SQLException {
    long twice =
        count(
            orders,
            "SELECT count(*) FROM (SELECT "
                + DELIVERED_PLACED_BY
                + " FROM orders GROUP BY 1 HAVING count(*) > 1) d");
    Set<String> answered =
        strings(
            orders,
            "SELECT "
                + DELIVERED_KEY
                + " FROM inbox WHERE operation = 'order-commands' AND status <> 'PROCESSING'");
    Set<String> placedBy =
        strings(orders, "SELECT DISTINCT " + DELIVERED_PLACED_BY + " FROM orders");
    long lost =
        sent.validKeys().stream()
            .filter(key -> !answered.contains(key) && !placedBy.contains(key))
            .count();
    long strangers = placedBy.stream().filter(key -> !sent.validKeys().contains(key)).count();
    return Invariant.of(
        "one order per distinct accepted key",
        sent.validKeys().size(),
        twice + lost + strangers,
        twice
            + " keys with more than one order, "
            + lost
            + " keys never answered, "
            + strangers
            + " orders from unknown keys");
  }

  private Invariant chargedOnce(List<LedgerEntry> ledger) throws SQLException {
    Map<String, Long> chargesPerPayment =
        ledger.stream()
            .collect(Collectors.groupingBy(LedgerEntry::paymentId, Collectors.counting()));
    long twice = chargesPerPayment.values().stream().filter(n -> n > 1).count();
    Set<String> orderIds = strings(orders, "SELECT order_id FROM orders");
    long forUnknownOrders =
        chargesPerPayment.keySet().stream()
            .filter(p -> !orderIds.contains(p.replaceFirst("^pay-", "")))
            .count();
    return Invariant.of(
        "no order charged twice (provider ledger)",
        chargesPerPayment.size(),
        twice + forUnknownOrders,
        twice
            + " payments charged more than once, "
            + forUnknownOrders
            + " charges for unknown orders, "
            + ledger.size()
            + " ledger entries");
  }

  private Invariant stockConserved() throws SQLException {
    long skus = count(orders, "SELECT count(*) FROM stock");
    long unbalanced =
        count(
            orders,
            "SELECT count(*) FROM stock s WHERE s.initial - s.available <>"
                + " coalesce((SELECT sum(qty) FROM stock_reservations r WHERE r.sku = s.sku), 0)");
    long reservationsOff =
        count(
            orders,
            "SELECT count(*) FROM (SELECT i.sku, sum(i.qty) AS ordered FROM order_items i JOIN orders o USING (order_id)"
                + " WHERE o.status IN ('PLACED', 'PAID') GROUP BY i.sku) x"
                + " FULL JOIN (SELECT sku, sum(qty) AS reserved FROM stock_reservations GROUP BY sku) r USING (sku)"
                + " WHERE coalesce(x.ordered, 0) <> coalesce(r.reserved, 0)");
    return Invariant.of(
        "stock conserved (initial - available = reserved = ordered)",
        skus,
        unbalanced + reservationsOff,
        unbalanced
            + " skus where initial - available <> reserved, "
            + reservationsOff
            + " skus where reservations differ from open orders");
  }

  private Invariant outboxDelivered() throws SQLException {
    long unpublished =
        count(orders, "SELECT count(*) FROM outbox WHERE published_at IS NULL")
            + count(payments, "SELECT count(*) FROM outbox WHERE published_at IS NULL");
    // PaymentRequested and PaymentCancelRequested: both the order service's "payment" events.
    Set<String> requested =
        strings(orders, "SELECT id::text FROM outbox WHERE aggregatetype = 'payment'");
    Set<String> received = deliveredKeys(payments, "payment-requests");
    Set<String> results =
        strings(
            payments,
            "SELECT id::text FROM outbox WHERE type IN ('PaymentCaptured', 'PaymentFailed')");
    Set<String> applied = deliveredKeys(orders, "order-payments");
    Set<String> refundsRequested =
        strings(payments, "SELECT id::text FROM outbox WHERE aggregatetype = 'refund'");
    Set<String> refundsReceived = deliveredKeys(payments, "payment-refunder");
    long requestsLost = missing(requested, received);
    long resultsLost = missing(results, applied);
    long refundsLost = missing(refundsRequested, refundsReceived);
    return Invariant.of(
        "every outbox event delivered",
        requested.size() + results.size() + refundsRequested.size(),
        unpublished + requestsLost + resultsLost + refundsLost,
        unpublished
            + " unpublished rows, "
            + requestsLost
            + " payment requests and cancels never received, "
            + resultsLost
            + " payment results never applied, "
            + refundsLost
            + " refund requests never received");
  }

  /**
   * Every event a consumer applied came from an outbox row the database still has: after a
   * failover, an event relayed from WAL the promoted standby never received has no row, yet its
   * consumer acted on it. The inbox holds each applied event's id as its key.
   */
  private Invariant noPhantomEvent() throws SQLException {
    Set<String> requested =
        strings(orders, "SELECT id::text FROM outbox WHERE aggregatetype = 'payment'");
    Set<String> charges =
        strings(payments, "SELECT id::text FROM outbox WHERE aggregatetype = 'charge'");
    Set<String> results =
        strings(payments, "SELECT id::text FROM outbox WHERE aggregatetype = 'payment-result'");
    Set<String> refunds =
        strings(payments, "SELECT id::text FROM outbox WHERE aggregatetype = 'refund'");
    Set<String> requestsApplied = deliveredKeys(payments, "payment-requests");
    Set<String> chargesApplied = deliveredKeys(payments, "payment-charger");
    Set<String> resultsApplied = deliveredKeys(orders, "order-payments");
    Set<String> refundsApplied = deliveredKeys(payments, "payment-refunder");
    long phantomRequests = missing(requestsApplied, requested);
    long phantomCharges = missing(chargesApplied, charges);
    long phantomResults = missing(resultsApplied, results);
    long phantomRefunds = missing(refundsApplied, refunds);
    return Invariant.of(
        "no phantom event",
        requestsApplied.size()
            + chargesApplied.size()
            + resultsApplied.size()
            + refundsApplied.size(),
        phantomRequests + phantomCharges + phantomResults + phantomRefunds,
        phantomRequests
            + " payment requests, "
            + phantomCharges
            + " charges, "
            + phantomResults
            + " payment results, "
            + phantomRefunds
            + " refunds applied without their outbox row");
  }

  /** Each order's events on Kafka, first copies, in the order their transactions committed. */
  private Invariant eventsInCommitOrder() {
    List<OrderPerAggregate.Relayed> relayed = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : readAll(bootstrap, ORDER_EVENTS_TOPIC)) {
      relayed.add(
          new OrderPerAggregate.Relayed(
              record.key(), header(record, "id"), header(record, "type")));
    }
    OrderPerAggregate.Finding finding =
        OrderPerAggregate.check(relayed, OrderPerAggregate.ORDER_EVENT_STEP);
    return Invariant.of(
        "each order's events relayed in commit order",
        finding.aggregates(),
        finding.outOfOrder(),
        finding.outOfOrder()
            + " of "
            + finding.aggregates()
            + " orders with an event whose first copy came before an earlier one's"
            + finding.example());
  }

  /**
   * Each order's commands applied in partition order: a CancelOrder follows its PlaceOrder in the
   * partition, so it must find the order (or be refused for another reason), never "no such order"
   * while the order exists.
   */
  private Invariant commandsInPartitionOrder(LoadProducer.Sent sent) throws SQLException {
    Set<String> notFound =
        strings(
            orders,
            "SELECT "
                + DELIVERED_KEY
                + " FROM inbox WHERE operation = 'order-commands' AND status = 'FAILED'"
                + " AND outcome_code = 404");
    Set<String> placedKeys =
        strings(orders, "SELECT DISTINCT " + DELIVERED_PLACED_BY + " FROM orders");
    long early =
        OrderPerAggregate.cancelsBeforeTheirOrder(sent.cancelledOrderKeys(), notFound, placedKeys);
    return Invariant.of(
        "each order's commands applied in partition order",
        sent.cancelledOrderKeys().size(),
        early,
        early
            + " of "
            + sent.cancelledOrderKeys().size()
            + " CancelOrder commands applied before the order they follow");
  }

  /** The keys a consumer of {@code operation} claimed, as delivered ({@link #DELIVERED_KEY}). */
  private static Set<String> deliveredKeys(DataSource db, String operation) throws SQLException {
    return strings(
        db, "SELECT " + DELIVERED_KEY + " FROM inbox WHERE operation = '" + operation + "'");
  }

  /** {@link #DELIVERED_KEY} for a key read from Kafka. */
  private static String deliveredKey(String key) {
    int suffix = key.indexOf('~');
    return suffix < 0 ? key : key.substring(0, suffix);
  }

  /** How many of {@code ids} {@code in} lacks. */
  private static long missing(Set<String> ids, Set<String> in) {
    return ids.stream().filter(id -> !in.contains(id)).count();
  }

  private Invariant deadLettered(LoadProducer.Sent sent) {
    Map<String, Set<String>> reasonsByKey = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : readAll(bootstrap, LoadProducer.TOPIC + ".DLT")) {
      String key = header(record, "iox-dlt-idempotency-key");
      String reason = header(record, "iox-dlt-reason");
      if (key != null && reason != null) {
        reasonsByKey.computeIfAbsent(deliveredKey(key), k -> new HashSet<>()).add(reason);
      }
    }
    long conflictsMissing =
        sent.conflictKeys().stream()
            .filter(k -> !reasonsByKey.getOrDefault(k, Set.of()).contains("CONFLICT"))
            .count();
    long malformedMissing =
        sent.malformedKeys().stream()
            .filter(k -> !reasonsByKey.getOrDefault(k, Set.of()).contains("MALFORMED_PAYLOAD"))
            .count();
    return Invariant.of(
        "every conflict and malformed message dead-lettered with its reason",
        sent.conflictKeys().size() + sent.malformedKeys().size(),
        conflictsMissing + malformedMissing,
        conflictsMissing
            + " conflicts and "
            + malformedMissing
            + " malformed records without a dead letter");
  }

  private Invariant nothingStuck() throws SQLException {
    long stuck =
        count(orders, "SELECT count(*) FROM inbox WHERE status = 'PROCESSING'")
            + count(payments, "SELECT count(*) FROM inbox WHERE status = 'PROCESSING'");
    long keys =
        count(orders, "SELECT count(*) FROM inbox") + count(payments, "SELECT count(*) FROM inbox");
    return Invariant.of("no key stuck in PROCESSING", keys, stuck, stuck + " keys in PROCESSING");
  }

  private Invariant everyOrderSettled() throws SQLException {
    long all = count(orders, "SELECT count(*) FROM orders");
    long open = count(orders, "SELECT count(*) FROM orders WHERE status = 'PLACED'");
    return Invariant.of(
        "every placed order paid or failed (nothing lost downstream)",
        all,
        open,
        open + " orders still waiting for a payment result");
  }

  private Invariant caughtUp() throws Exception {
    long lag = 0;
    StringJoiner detail = new StringJoiner(" ", "lag ", "");
    List<KafkaLag.PartitionLag> behind = new ArrayList<>();
    try (KafkaLag kafka = new KafkaLag(bootstrap)) {
      for (String[] group : CONSUMER_GROUPS) {
        List<KafkaLag.PartitionLag> groupBehind = kafka.behind(group[0], group[1]);
        long groupLag = groupBehind.stream().mapToLong(KafkaLag.PartitionLag::records).sum();
        lag += groupLag;
        detail.add(group[0] + "=" + groupLag);
        behind.addAll(groupBehind);
      }
    }
    // Which partition stands still and who holds it: a member that keeps a partition without
    // consuming it, or a partition no member holds, are different faults.
    behind.forEach(partition -> detail.add("(" + partition + ")"));
    return Invariant.of("consumers caught up", CONSUMER_GROUPS.size(), lag, detail.toString());
  }

  /** Every record of {@code topic} from its beginning to its end at the time of the call. */
  static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
    return readAll(bootstrap, List.of(topic));
  }

  /**
   * Every record of {@code topics} from their beginnings to their ends at the time of the call,
   * through one consumer: a consumer of its own per topic cost about half a second each.
   */
  static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, Collection<String> topics) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "group.id",
                "iox-verifier-" + UUID.randomUUID(),
                "auto.offset.reset",
                "earliest",
                "enable.auto.commit",
                "false"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .forEach(partitions::add);
      }
      if (partitions.isEmpty()) {
        return records;
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))
          && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  /**
   * A database restarted by the run may still be recovering: wait for it (bounded) rather than
   * report its absence as violations.
   */
  private static void awaitReachable(DataSource dataSource)
      throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + DATABASE_WAIT.toNanos();
    while (true) {
      try (Connection connection = dataSource.getConnection()) {
        return;
      } catch (SQLException unreachable) {
        if (System.nanoTime() > deadline) {
          throw unreachable;
        }
        Thread.sleep(500);
      }
    }
  }

  public static long count(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }

  private static Set<String> strings(DataSource dataSource, String sql) throws SQLException {
    Set<String> values = new HashSet<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        values.add(rows.getString(1));
      }
    }
    return values;
  }
}
