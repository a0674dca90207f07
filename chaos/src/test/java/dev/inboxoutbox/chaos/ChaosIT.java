package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Short chaos runs with real processes, PostgreSQL and Kafka: with the inbox every invariant holds
 * under kills; with the inbox off (negative control) the verifier must catch the double effects.
 */
class ChaosIT {

  private static final Path REPO =
      Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "..")).toAbsolutePath().normalize();

  /**
   * Orders of the inbox and ordering controls' runs. A client retry (three in ten orders) doubles
   * an order without the inbox, and most cancels (one order in twenty) sent right behind their
   * order land in its batch: 300 orders gave 80 doubled keys and 13 of 19 cancels applied first
   * (600 gave 255 and 31 of 38), with half the backlog to drain after the kills. The refund control
   * keeps 600: few cancels come after a capture (16 and 5 cancelled orders kept their money in runs
   * of 600 and 300).
   */
  private static final int CONTROL_ORDERS = 300;

  /**
   * How long the failover's control waits for quiet: after the last failover the relay skips the
   * outbox rows the promoted standby wrote below its slot's position, so the run never goes quiet
   * and verifies when this is over.
   */
  private static final Duration LOST_FOR_GOOD = Duration.ofSeconds(20);

  @Test
  void aShortChaosRunWithKillsACrashAFailoverABrokerKillAndNetworkLatencyPassesEveryInvariant()
      throws Exception {
    FaultOptions everyKind =
        new FaultOptions(
            FaultOptions.parseKinds(RunProfile.LONG_KINDS),
            KafkaCluster.BROKERS,
            Duration.ofSeconds(12),
            Duration.ofSeconds(3),
            Duration.ofSeconds(12),
            Duration.ofSeconds(12),
            Duration.ofSeconds(3),
            false);
    Run run = run(options(NegativeControl.NONE, 42, Duration.ofSeconds(180)), everyKind);
    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.PASS);
    assertThat(run.output).contains("VERDICT: PASS");
    // Restarts must come from the trained archive, not silently from the slow fat jar.
    assertThat(run.output)
        .contains("processes up after")
        .contains("(extracted jar with class-data archive)");
    assertThat(run.output)
        .containsPattern("kills \\{total=\\d+, whileServing=\\d+, duringStartUp=\\d+")
        .contains("duringInfrastructureFault=")
        .containsPattern("\\[network\\] \\+200 ms latency to (postgres|kafka-\\d)")
        .contains("PostgreSQL SIGKILLed")
        .contains("PostgreSQL up again")
        .containsPattern("no phantom event\\s+PASS")
        .containsPattern("each order's events relayed in commit order\\s+PASS")
        .containsPattern("each order's commands applied in partition order\\s+PASS")
        .containsPattern("no cancelled order keeps a capture \\(provider ledger\\)\\s+PASS")
        .containsPattern(
            "no refund twice, none without a capture of a cancelled order \\(provider ledger\\)"
                + "\\s+PASS")
        .containsPattern("Kafka broker \\d \\(leader of the busiest partitions\\) SIGKILLed")
        .containsPattern("faults \\{.*postgres-crash=\\d+.*broker-kill=\\d+")
        .contains("PostgreSQL failed over")
        .doesNotContain("failing over anyway");
  }

  /**
   * A time-boxed run: the load is paced by what the pipeline settles and ends with its window, so
   * the run settles within a minute of it instead of draining a backlog for minutes. Its floors
   * include two PostgreSQL crashes, a kind this run does not inject: every invariant holds, the
   * floor is missed and the verdict is INCONCLUSIVE, never PASS. The report gives the throughput
   * over the window and the CPU each component used (the in-JVM broker in the iox JVM's row).
   */
  @Test
  void aTimeBoxedRunIsPacedByTheDrainAndAMissedFloorLeavesItInconclusive() throws Exception {
    ChaosOptions options =
        timeBoxed(options(NegativeControl.NONE, 21, Duration.ofSeconds(120)), 40);
    Run run = run(options, FaultOptions.processesOnly(), ProofFloors.defaults());

    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.INCONCLUSIVE);
    assertThat(run.output)
        .contains("a 40 s load window paced by the drain")
        // Floors for 120 s in a 40 s window: the default rate, 20 faults per 120 s, with a margin.
        .contains(
            "process faults paced to 23 in the window's first 35 s (the floor's 20 and a margin)")
        .containsPattern("\\[3[5-9]\\.\\ds\\] kills and crash points over")
        .containsPattern("\\[3[6-9]\\.\\ds\\] faults over: the load goes on without them")
        .containsPattern("load over after 4[0-5] s: \\d+ orders sent")
        .containsPattern("one order per distinct accepted key\\s+PASS")
        .containsPattern("PostgreSQL crashes\\s+MISSED\\s+2\\s+0")
        .containsPattern("network faults\\s+(met|MISSED)\\s+8\\s+\\d+")
        .contains("VERDICT: INCONCLUSIVE")
        .containsPattern("throughput: \\d+\\.\\d orders/s settled over the 40 s window")
        .containsPattern("(?m)^iox JVM \\(with the Kafka broker\\) +1 +[1-9]\\d*\\.\\d ")
        .containsPattern("(?m)^order-consumer +(?:[2-9]|[1-9]\\d+) +[1-9]\\d*\\.\\d +\\d+\\.\\d ")
        // One payment-consumer: its row counts a second process only if a fault hit it.
        .containsPattern("(?m)^payment-consumer +[1-9]\\d* +[1-9]\\d*\\.\\d +\\d+\\.\\d ")
        .containsPattern("(?m)^PostgreSQL +1 +\\d+\\.\\d +\\d+\\.\\d ");
    Matcher settle = Pattern.compile("settle phase: (\\d+) s").matcher(run.output);
    assertThat(settle.find()).as(run.output).isTrue();
    assertThat(Integer.parseInt(settle.group(1)))
        .as("the paced load leaves no backlog to drain")
        .isLessThan(60);
  }

  /**
   * The failover's control: an asynchronous standby whose replication is held back while the
   * services commit, then promoted. What the old primary alone acknowledged is gone, while Kafka
   * offsets and events past it were committed; the verifier must report the lost effects.
   */
  @Test
  void theFailoverControlWithAnAsynchronousStandbyFailsTheVerifier() throws Exception {
    FaultOptions unsafeFailover =
        new FaultOptions(
            FaultOptions.parseKinds("postgres-failover"),
            1,
            Duration.ofSeconds(12),
            Duration.ofSeconds(3),
            Duration.ofSeconds(8),
            Duration.ofSeconds(12),
            Duration.ofSeconds(3),
            true);
    // The failover waits until the relays' slots are on the standby: 26 s on a machine loaded
    // far beyond its two cores although the run wakes the standby's slot sync worker (45 s left to
    // its naps). The load lasts 50 s (1,000 orders at 20/s), so the services are still committing
    // when the replication is held and the standby promoted; a failover after the load would lose
    // nothing to detect. No cancels: a cancel held for the charge of an order the failover lost
    // would wait out its patience.
    Run run = run(options(NegativeControl.NONE, 11, LOST_FOR_GOOD, 1000, 20, 0.0), unsafeFailover);
    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.FAIL);
    assertThat(run.output)
        .contains("replication to the standby held")
        .contains("PostgreSQL failed over")
        .containsPattern(
            "(one order per distinct accepted key|every outbox event delivered"
                + "|every placed order paid or failed"
                + " \\(nothing lost downstream\\)|no phantom event)\\s+FAIL");
  }

  @Test
  void theNegativeControlWithoutTheInboxFailsTheVerifier() throws Exception {
    Run run =
        run(
            withoutFaults(
                options(NegativeControl.NO_DEDUP, 7, Duration.ofSeconds(120), CONTROL_ORDERS, 100)),
            FaultOptions.none(),
            NO_NETWORK_FAULTS);
    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.FAIL);
    assertThat(run.output)
        .containsPattern(
            "one order per distinct accepted key\\s+FAIL.* [1-9]\\d* keys with more than one order")
        .as("the events themselves all arrived: only their effects doubled")
        .containsPattern("no phantom event\\s+PASS")
        .containsPattern("every outbox event delivered\\s+PASS");
  }

  /**
   * The ordering control: the order service applies each batch last record first, so a CancelOrder
   * sent right behind its PlaceOrder reaches the order service before the order exists.
   */
  @Test
  void theNegativeControlWithAReorderingConsumerFailsTheVerifier() throws Exception {
    Run run =
        run(
            withoutFaults(
                options(NegativeControl.REORDER, 5, Duration.ofSeconds(120), CONTROL_ORDERS, 100)),
            FaultOptions.none(),
            NO_NETWORK_FAULTS);
    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.FAIL);
    assertThat(run.output)
        .containsPattern(
            "each order's commands applied in partition order\\s+FAIL.* [1-9]\\d* of \\d+"
                + " CancelOrder commands applied before the order they follow")
        .as("a reordering consumer changes which effects happen, not how often")
        .containsPattern("one order per distinct accepted key\\s+PASS");
  }

  /**
   * The refund control: payment-consumer loses every refund request. A third of the orders are
   * cancelled, a quarter of those as soon as the provider has charged them, so some cancelled
   * orders must keep their money, and the verifier must say so.
   */
  @Test
  void theNegativeControlThatDropsRefundsFailsTheVerifier() throws Exception {
    Run run =
        run(
            withoutFaults(
                options(NegativeControl.DROP_REFUNDS, 3, Duration.ofSeconds(120), 600, 100, 0.3)),
            FaultOptions.none(),
            NO_NETWORK_FAULTS);
    assertThat(run.verdict).as(run.output).isEqualTo(Verdict.FAIL);
    assertThat(run.output)
        .containsPattern(
            "no cancelled order keeps a capture \\(provider ledger\\)\\s+FAIL.* [1-9]\\d*"
                + " cancelled orders keep captured money")
        .containsPattern(
            "every outbox event delivered\\s+FAIL.* [1-9]\\d* refund requests never received")
        .as("nothing was refunded, so nothing was refunded wrongly")
        .containsPattern(
            "no refund twice, none without a capture of a cancelled order \\(provider ledger\\)"
                + "\\s+PASS")
        .containsPattern("one order per distinct accepted key\\s+PASS");
  }

  private static ChaosOptions options(NegativeControl control, long seed, Duration quiescence)
      throws Exception {
    return options(control, seed, quiescence, 600, 100);
  }

  private static ChaosOptions options(
      NegativeControl control, long seed, Duration quiescence, int orders, int ratePerSecond)
      throws Exception {
    return options(control, seed, quiescence, orders, ratePerSecond, 0.05);
  }

  private static ChaosOptions options(
      NegativeControl control,
      long seed,
      Duration quiescence,
      int orders,
      int ratePerSecond,
      double cancelShare)
      throws Exception {
    return new ChaosOptions(
        seed,
        orders,
        Duration.ofSeconds(120),
        ratePerSecond,
        2,
        1,
        Duration.ofMillis(1500),
        Duration.ofMillis(3000),
        4,
        Duration.ofMillis(500),
        0.002,
        control,
        0.3,
        0.03,
        0.02,
        cancelShare,
        0.3,
        quiescence,
        REPO,
        Files.createTempDirectory("iox-reports"));
  }

  /** The same options, time-boxed: a window of {@code seconds} instead of a count of orders. */
  private static ChaosOptions timeBoxed(ChaosOptions fixed, int seconds) {
    return varied(
        fixed,
        0,
        Duration.ofSeconds(seconds),
        150,
        fixed.orderInstances(),
        fixed.paymentInstances(),
        fixed.minKills(),
        fixed.crashPointProbability());
  }

  /**
   * The same options for a control whose defect needs no fault to show: one instance per service,
   * no kill and no crash point. Client retries double orders without the inbox, a batch applied
   * backwards puts a cancel before its order, and lost refunds leave cancelled orders paid, all
   * without a restart.
   */
  private static ChaosOptions withoutFaults(ChaosOptions fixed) {
    return varied(fixed, fixed.orders(), fixed.window(), fixed.ratePerSecond(), 1, 1, 0, 0.0);
  }

  /** {@code fixed} with its load, its fleet and its process faults replaced. */
  private static ChaosOptions varied(
      ChaosOptions fixed,
      int orders,
      Duration window,
      int ratePerSecond,
      int orderInstances,
      int paymentInstances,
      int minKills,
      double crashPointProbability) {
    return new ChaosOptions(
        fixed.seed(),
        orders,
        window,
        ratePerSecond,
        orderInstances,
        paymentInstances,
        fixed.killIntervalMin(),
        fixed.killIntervalMax(),
        minKills,
        fixed.restartDelay(),
        crashPointProbability,
        fixed.negativeControl(),
        fixed.retryShare(),
        fixed.conflictShare(),
        fixed.malformedShare(),
        fixed.cancelShare(),
        fixed.webhookDuplicateShare(),
        fixed.quiescenceTimeout(),
        fixed.repoRoot(),
        fixed.reportDirectory());
  }

  private static final NetworkChaos.Settings NO_NETWORK_FAULTS =
      new NetworkChaos.Settings(
          java.util.Set.of(),
          Duration.ofSeconds(8),
          Duration.ofSeconds(15),
          Duration.ofMillis(200),
          Duration.ofSeconds(4));

  private record Run(Verdict verdict, String output) {}

  /** A run that claims no proof floor: its verdict is the invariants'. */
  private static Run run(ChaosOptions options, FaultOptions faults) throws Exception {
    return run(options, faults, NetworkChaos.Settings.defaults());
  }

  private static Run run(ChaosOptions options, FaultOptions faults, NetworkChaos.Settings network)
      throws Exception {
    return run(options, faults, network, ProofFloors.none("a focused test run"));
  }

  private static Run run(ChaosOptions options, FaultOptions faults, ProofFloors floors)
      throws Exception {
    return run(options, faults, NetworkChaos.Settings.defaults(), floors);
  }

  private static Run run(
      ChaosOptions options, FaultOptions faults, NetworkChaos.Settings network, ProofFloors floors)
      throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Verdict verdict =
        new ChaosRun(
                options,
                faults,
                network,
                floors,
                new PrintStream(new TeeStream(out, System.out), true, StandardCharsets.UTF_8))
            .run();
    return new Run(verdict, buffer.toString(StandardCharsets.UTF_8));
  }

  /** Shows the run's progress in the build log while the test keeps a copy to assert on. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream first;
    private final java.io.OutputStream second;

    TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }
  }
}
