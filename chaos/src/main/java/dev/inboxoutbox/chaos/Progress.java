package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceFleet;
import dev.inboxoutbox.chaos.fleet.ServiceProcess;
import dev.inboxoutbox.chaos.report.TimelinePoint;
import dev.inboxoutbox.chaos.verify.KafkaLag;
import dev.inboxoutbox.chaos.verify.RunFigures;
import dev.inboxoutbox.chaos.verify.Verifier;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.orders.load.LoadProducer;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a run has done so far, sampled once a second for the console and the report's timeline
 * (records sent, orders applied and settled, duplicates absorbed, kills, the CPU each process
 * used), and the wait for quiet before the verification.
 */
final class Progress {

  private static final Pattern MEASUREMENT = Pattern.compile("\"value\"\\s*:\\s*([0-9.E+-]+)");

  private final ServiceFleet fleet;
  private final LoadProducer load;
  private final Database ordersDb;
  private final Instant loadStarted;
  private final ProgressLine line;
  private final CpuAccountant cpu;
  private final List<TimelinePoint> timeline = new ArrayList<>();
  // Per instance and consumer group ("order-consumer-1/order-commands").
  private final Map<String, Absorbed> duplicates = new ConcurrentHashMap<>();
  private volatile OrderCounts lastKnown = OrderCounts.UNKNOWN;

  Progress(
      ServiceFleet fleet,
      LoadProducer load,
      Database ordersDb,
      Instant loadStarted,
      CpuAccountant cpu,
      PrintStream out) {
    this.fleet = fleet;
    this.cpu = cpu;
    this.load = load;
    this.ordersDb = ordersDb;
    this.loadStarted = loadStarted;
    this.line = ProgressLine.forConsole(out);
  }

  /**
   * Duplicates one process absorbed: a restarted process counts from zero again, so what its
   * previous lives counted is kept apart.
   */
  private static final class Absorbed {
    double previousLives;
    double currentLife;
    int lifeSeen;

    double total() {
      return previousLives + currentLife;
    }
  }

  void sample() {
    cpu.sample();
    OrderCounts counts = OrderCounts.read(this::countOrders);
    if (counts.settled() != null) {
      lastKnown = counts;
    }
    long absorbed = sampleDuplicates();
    int kills = fleet.totalKills();
    long atMillis = Duration.between(loadStarted, Instant.now()).toMillis();
    TimelinePoint point =
        new TimelinePoint(
            atMillis, load.sent().records(), counts.orders(), counts.settled(), absorbed, kills);
    List<TimelinePoint> samples;
    synchronized (this) {
      timeline.add(point);
      samples = List.copyOf(timeline);
    }
    line.show(atMillis, ProgressLine.describe(samples));
  }

  /**
   * Settled is paid or payment failed: the end of the order -> payment -> provider -> webhook
   * chain. Both counts in one scan, once a second while the run is short of CPU; the rejected
   * commands (failed inbox claims of the order service) from the inbox beside it.
   */
  private OrderCounts countOrders() throws SQLException {
    try (Connection connection = ordersDb.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                """
                SELECT count(*), count(*) FILTER (WHERE status <> 'PLACED'),
                       (SELECT count(*) FROM inbox
                         WHERE operation = 'order-commands' AND status = 'FAILED')
                  FROM orders
                """)) {
      row.next();
      return new OrderCounts(row.getLong(1), row.getLong(2), row.getLong(3));
    }
  }

  /** The last counts the database answered, or {@link OrderCounts#UNKNOWN} before the first. */
  OrderCounts lastKnownCounts() {
    return lastKnown;
  }

  /** Ends the progress line, so that what follows starts on a line of its own. */
  void endLine() {
    line.end();
  }

  /**
   * Where each inbox operation's duplicate claims are counted: the consumer groups in the
   * framework's consumer metric, the webhook endpoint of payment-consumer in its own.
   */
  private static final Map<String, String> DUPLICATES_METRIC = duplicatesMetric();

  private static Map<String, String> duplicatesMetric() {
    Map<String, String> metrics = new LinkedHashMap<>();
    for (String[] group : Verifier.CONSUMER_GROUPS) {
      metrics.put(
          group[0],
          "/actuator/metrics/iox.consumer.claims?tag=result:duplicate&tag=operation:" + group[0]);
    }
    metrics.put(
        RunFigures.WEBHOOK_OPERATION, "/actuator/metrics/payment.webhooks?tag=decision:duplicate");
    return Map.copyOf(metrics);
  }

  /**
   * Reads each live instance's duplicate claims per inbox operation. An operation belongs to the
   * service its name starts with (order-commands to order-consumer), so each instance is asked only
   * for its own.
   */
  private long sampleDuplicates() {
    long absorbed = 0;
    for (ServiceProcess service : fleet.all()) {
      String servicePrefix = service.name().substring(0, service.name().indexOf('-') + 1);
      for (Map.Entry<String, String> metric : DUPLICATES_METRIC.entrySet()) {
        String operation = metric.getKey();
        if (!operation.startsWith(servicePrefix)) {
          continue;
        }
        Absorbed seen =
            duplicates.computeIfAbsent(service.name() + "/" + operation, key -> new Absorbed());
        int life = service.starts();
        if (life != seen.lifeSeen) {
          seen.previousLives += seen.currentLife;
          seen.currentLife = 0;
          seen.lifeSeen = life;
        }
        service
            .get(metric.getValue())
            .ifPresent(
                body -> {
                  Matcher value = MEASUREMENT.matcher(body);
                  if (value.find()) {
                    seen.currentLife = Double.parseDouble(value.group(1));
                  }
                });
        absorbed += (long) seen.total();
      }
    }
    return absorbed;
  }

  /**
   * Duplicate claims per inbox operation over the whole run. Sampled once a second from each
   * instance: what an instance absorbed in the last second before it was killed is missing, so
   * these are lower bounds.
   */
  Map<String, Long> duplicatesByOperation() {
    Map<String, Long> byOperation = new TreeMap<>();
    for (String operation : DUPLICATES_METRIC.keySet()) {
      byOperation.put(operation, 0L);
    }
    duplicates.forEach(
        (key, absorbed) ->
            byOperation.merge(
                key.substring(key.indexOf('/') + 1), (long) absorbed.total(), Long::sum));
    return byOperation;
  }

  synchronized List<TimelinePoint> timeline() {
    return List.copyOf(timeline);
  }

  /**
   * How the settle phase ended: quiet, stalled (nothing left to deliver or restart, yet orders wait
   * for a payment that nothing will bring), or out of time with the processes not up then.
   */
  record Settled(Outcome outcome, List<String> down) {
    enum Outcome {
      QUIET,
      STALLED,
      TIMED_OUT
    }
  }

  /**
   * How long nothing may move, with no lag, no unpublished row, no webhook copy due and every
   * process up, before orders still waiting are taken as lost: only a lost commit leaves an order
   * waiting with nothing in flight, and the verifier then says which.
   */
  private static final int STALLED_SAMPLES = 10;

  /**
   * The pause between samples once nothing is in flight: the three samples that confirm the quiet
   * only need to see nothing change, and a second between them left the run idle for seconds.
   */
  private static final Duration CONFIRMING_QUIET = Duration.ofMillis(250);

  /**
   * Waits until every consumer group is at lag 0, no outbox row is unpublished, no order waits for
   * its payment, the provider has no webhook copy left to deliver, every killed process is back up,
   * and all of that holds for three samples in a row; or until orders wait with all the rest quiet
   * for {@link #STALLED_SAMPLES} samples. Restarts still under way overlap with the draining.
   */
  Settled awaitQuiescence(
      Database paymentsDb, String bootstrap, LongSupplier pendingWebhooks, Duration timeout)
      throws Exception {
    Instant deadline = Instant.now().plus(timeout);
    int quietSamples = 0;
    int stalledSamples = 0;
    DrainState last = null;
    List<String> down = List.of();
    try (KafkaLag kafka = new KafkaLag(bootstrap)) {
      while (Instant.now().isBefore(deadline)) {
        DrainState state;
        try {
          state = drainState(kafka, paymentsDb, pendingWebhooks.getAsLong());
        } catch (java.sql.SQLException | java.util.concurrent.ExecutionException unreachable) {
          // PostgreSQL or Kafka is down for a while: an outage to wait out, not a reason to stop.
          quietSamples = 0;
          stalledSamples = 0;
          last = null;
          sample();
          Thread.sleep(1000);
          continue;
        }
        down =
            fleet.all().stream()
                .filter(service -> !service.ready())
                .map(ServiceProcess::name)
                .toList();
        boolean unchanged = state.equals(last) && down.isEmpty();
        quietSamples = unchanged && state.quiet() ? quietSamples + 1 : 0;
        stalledSamples = unchanged && state.nothingInFlight() ? stalledSamples + 1 : 0;
        last = state;
        if (quietSamples >= 3) {
          return new Settled(Settled.Outcome.QUIET, List.of());
        }
        if (stalledSamples >= STALLED_SAMPLES) {
          return new Settled(Settled.Outcome.STALLED, List.of());
        }
        sample();
        Thread.sleep(state.quiet() && down.isEmpty() ? CONFIRMING_QUIET.toMillis() : 1000);
      }
    }
    return new Settled(Settled.Outcome.TIMED_OUT, down);
  }

  /**
   * One look at what is still on its way: the consumer groups' lag, unpublished outbox rows, orders
   * waiting for a payment, webhook copies the provider has yet to deliver, the payment inbox's
   * size.
   */
  private record DrainState(
      long lag, long unpublished, long ordersWaiting, long pendingWebhooks, long paymentInbox) {

    boolean nothingInFlight() {
      return lag == 0 && unpublished == 0 && pendingWebhooks == 0;
    }

    boolean quiet() {
      return nothingInFlight() && ordersWaiting == 0;
    }
  }

  /**
   * Lag, unpublished outbox rows, orders waiting for a payment, webhook copies the provider has yet
   * to deliver and the payment inbox's size.
   */
  private DrainState drainState(KafkaLag kafka, Database paymentsDb, long pendingWebhooks)
      throws java.sql.SQLException, java.util.concurrent.ExecutionException, InterruptedException {
    long lag = 0;
    for (String[] group : Verifier.CONSUMER_GROUPS) {
      lag += kafka.lag(group[0], group[1]);
    }
    long unpublished =
        Verifier.count(
                ordersDb.dataSource(), "SELECT count(*) FROM outbox WHERE published_at IS NULL")
            + Verifier.count(
                paymentsDb.dataSource(), "SELECT count(*) FROM outbox WHERE published_at IS NULL");
    long open =
        Verifier.count(
            ordersDb.dataSource(), "SELECT count(*) FROM orders WHERE status = 'PLACED'");
    return new DrainState(
        lag,
        unpublished,
        open,
        pendingWebhooks,
        Verifier.count(paymentsDb.dataSource(), "SELECT count(*) FROM inbox"));
  }
}
