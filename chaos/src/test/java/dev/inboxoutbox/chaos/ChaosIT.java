package dev.inboxoutbox.chaos;

import static dev.inboxoutbox.chaos.ChaosRuns.options;
import static dev.inboxoutbox.chaos.ChaosRuns.run;
import static dev.inboxoutbox.chaos.ChaosRuns.timeBoxed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.ChaosRuns.Run;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Short chaos runs with real processes, PostgreSQL and Kafka that every invariant must survive:
 * kills, crash points, PostgreSQL crashes and a failover, a broker kill and network faults; and a
 * time-boxed run whose missed floor leaves it inconclusive. {@link NegativeControlsIT} shows the
 * verifier catching what each guarantee prevents.
 */
class ChaosIT {

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
    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.PASS);
    assertThat(run.output()).contains("VERDICT: PASS");
    // Restarts must come from the trained archive, not silently from the slow fat jar.
    assertThat(run.output())
        .contains("processes up after")
        .contains("(extracted jar with class-data archive)");
    assertThat(run.output())
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

    assertThat(run.verdict()).as(run.output()).isEqualTo(Verdict.INCONCLUSIVE);
    assertThat(run.output())
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
    Matcher settle = Pattern.compile("settle phase: (\\d+) s").matcher(run.output());
    assertThat(settle.find()).as(run.output()).isTrue();
    assertThat(Integer.parseInt(settle.group(1)))
        .as("the paced load leaves no backlog to drain")
        .isLessThan(60);
  }
}
