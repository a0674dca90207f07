package dev.inboxoutbox.chaos;

import static dev.inboxoutbox.chaos.ChaosRuns.options;
import static dev.inboxoutbox.chaos.ChaosRuns.run;
import static dev.inboxoutbox.chaos.ChaosRuns.runWithoutFaults;
import static dev.inboxoutbox.chaos.ChaosRuns.withoutProcessFaults;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.ChaosRuns.Run;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Negative controls: runs with one guarantee taken away (the inbox, partition order, refunds, a
 * synchronous standby). Each must end FAIL, naming the invariant the missing guarantee broke: a
 * verifier that passed them would prove nothing when {@link ChaosIT}'s runs pass.
 */
class NegativeControlsIT {

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
            Duration.ofSeconds(30),
            Duration.ofSeconds(12),
            Duration.ofSeconds(3),
            true);
    // The failover waits until the relays' slots are on the standby: 26 s on a machine loaded
    // far beyond its two cores although the run wakes the standby's slot sync worker (45 s left to
    // its naps). The load lasts 50 s (1,000 orders at 20/s), so the services are still committing
    // when the replication is held and the standby promoted; a failover after the load would lose
    // nothing to detect. One failover shows the loss: the first comes 15 s into the load, the next
    // 30 s after it (at 8 s apart, three failovers took 35 s more, the last one holding replication
    // for orders a finished load no longer committed). No cancels: a cancel held for the charge of
    // an order the failover lost would wait out its patience.
    // No kill and no crash point, one instance per service: what the failover loses needs no
    // restart to show, and a service restarting through the hold commits nothing to lose.
    Run run =
        run(
            withoutProcessFaults(options(NegativeControl.NONE, 11, LOST_FOR_GOOD, 1000, 20, 0.0)),
            unsafeFailover);
    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.FAIL);
    assertThat(run.output())
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
        runWithoutFaults(
            options(NegativeControl.NO_DEDUP, 7, Duration.ofSeconds(120), CONTROL_ORDERS, 100));
    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.FAIL);
    assertThat(run.output())
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
        runWithoutFaults(
            options(NegativeControl.REORDER, 5, Duration.ofSeconds(120), CONTROL_ORDERS, 100));
    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.FAIL);
    assertThat(run.output())
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
        runWithoutFaults(
            options(NegativeControl.DROP_REFUNDS, 3, Duration.ofSeconds(120), 600, 100, 0.3));
    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.FAIL);
    assertThat(run.output())
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
}
