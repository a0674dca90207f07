package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog;
import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RunProfileTest {

  @Test
  void theLongProfileSetsWhatTheCommandLineLeftOpen() {
    ChaosCommand command = parsed(RunProfile.LONG, "--long", "--orders", "500");
    assertThat(command.orders).isEqualTo(500);
    assertThat(command.minKills).isEqualTo(RunProfile.LONG_MIN_KILLS);
    assertThat(command.postgresCrashEvery).isEqualTo(Duration.ofSeconds(30));
    assertThat(command.brokerKillEvery).isEqualTo(Duration.ofSeconds(30));
    assertThat(command.networkFaults).isEqualTo("latency,reset,blackhole");
    assertThat(FaultOptions.parseKinds(command.faults))
        .as("every kind --faults chooses, the failover too")
        .containsExactlyInAnyOrder(
            FaultLog.Kind.PROCESS_KILL,
            FaultLog.Kind.CRASH_POINT,
            FaultLog.Kind.POSTGRES_CRASH,
            FaultLog.Kind.POSTGRES_FAILOVER,
            FaultLog.Kind.BROKER_KILL);
    assertThat(command.postgresFailoverEvery).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void theLongProfileKeepsTheKindsChosen() {
    ChaosCommand command = parsed(RunProfile.LONG, "--long", "--faults", "process-kill");
    assertThat(command.faults).isEqualTo("process-kill");
  }

  @Test
  void theQuickProfileSpacesTheFaultsOutUnlessTold() {
    ChaosCommand command = parsed(RunProfile.QUICK, "--quick", "--network-fault-every", "20s");
    assertThat(command.networkFaultEvery).isEqualTo(Duration.ofSeconds(20));
    assertThat(command.postgresCrashEvery).isEqualTo(Duration.ofSeconds(90));
    assertThat(command.orders).as("time-boxed").isNull();
    assertThat(command.window).isEqualTo(Duration.ofSeconds(RunProfile.QUICK_WINDOW_SECONDS));
  }

  /** The pipeline measured as the default run has it: the 3-broker cluster, nothing broken. */
  @Test
  void theFaultFreeProfileChoosesNoFaultOnTheClusterOfThree() {
    ChaosCommand command = parsed(RunProfile.FAULT_FREE, "--no-faults", "--rate", "300");
    assertThat(FaultOptions.parseKinds(command.faults)).isEmpty();
    assertThat(command.networkFaults).isEqualTo("none");
    assertThat(command.kafkaBrokers).isEqualTo(KafkaCluster.BROKERS);
    assertThat(command.rate).isEqualTo(300);
    assertThat(command.orders).as("time-boxed").isNull();
    assertThat(parsed(RunProfile.FAULT_FREE, "--no-faults", "--kafka-brokers", "1").kafkaBrokers)
        .isEqualTo(1);
  }

  @Test
  void theInboxPriceRunsWithoutFaultsRepeatsOrCancelsAboveWhatThePipelineSettles() {
    ChaosCommand command = parsed(RunProfile.INBOX_PRICE, "--inbox-price");
    assertThat(FaultOptions.parseKinds(command.faults)).isEmpty();
    assertThat(command.networkFaults).isEqualTo("none");
    assertThat(command.kafkaBrokers).isEqualTo(KafkaCluster.BROKERS);
    assertThat(command.window).isEqualTo(Duration.ofSeconds(RunProfile.INBOX_PRICE_WINDOW_SECONDS));
    assertThat(command.rate).isEqualTo(RunProfile.INBOX_PRICE_RATE);
    assertThat(command.shares.retryShare).isZero();
    assertThat(command.shares.conflictShare).isZero();
    assertThat(command.shares.cancelShare).isZero();
    assertThat(command.webhookDuplicates).isZero();
    assertThat(command.shares.malformedShare).as("dead-lettered before any inbox").isPositive();
    assertThat(command.orderInstances).isEqualTo(2);
    ChaosCommand given =
        parsed(RunProfile.INBOX_PRICE, "--inbox-price", "--duration", "2m", "--rate", "200");
    assertThat(given.window).isEqualTo(Duration.ofMinutes(2));
    assertThat(given.rate).isEqualTo(200);
  }

  /** A comparison's run that settled fewer orders than a floor is still a measurement. */
  @Test
  void theInboxPriceClaimsNoFloorNotEvenTheOrdersSettled() throws Exception {
    ChaosCommand command = new ChaosCommand();
    new CommandLine(command).parseArgs("--inbox-price");
    ChaosOptions windowed =
        ChaosRuns.timeBoxed(
            ChaosRuns.options(NegativeControl.NONE, 1, Duration.ofMinutes(1)),
            RunProfile.INBOX_PRICE_WINDOW_SECONDS);

    ProofFloors floors =
        command.proofFloors(windowed, FaultOptions.none(), ChaosRuns.NO_NETWORK_FAULTS);

    assertThat(floors.claimed()).isEmpty();
  }

  @Test
  void theLongProfileIsALongerWindow() {
    ChaosCommand command = parsed(RunProfile.LONG, "--long");
    assertThat(command.orders).as("time-boxed").isNull();
    assertThat(command.window).isEqualTo(Duration.ofSeconds(RunProfile.LONG_WINDOW_SECONDS));
    assertThat(parsed(RunProfile.LONG, "--long", "--duration", "5m").window)
        .isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void withoutAProfileTheRunIsTimeBoxedWithTheDefaults() {
    ChaosCommand command = new ChaosCommand();
    new CommandLine(command).parseArgs();
    assertThat(command.orders).isNull();
    assertThat(command.window).isEqualTo(Duration.ofSeconds(120));
    assertThat(command.minKills).isEqualTo(20);
    assertThat(command.networkFaultEvery).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void aTimeBoxedRunSpreadsItsFaultsOverItsWindowUnlessTold() {
    ChaosCommand command = new ChaosCommand();
    CommandLine commandLine = new CommandLine(command);
    commandLine.parseArgs("--duration", "60s", "--broker-kill-every", "25s");
    RunProfile.fitFaultsToWindow(command, commandLine.getParseResult());
    assertThat(command.postgresCrashEvery).isEqualTo(Duration.ofSeconds(15));
    assertThat(command.postgresFailoverEvery).isEqualTo(Duration.ofSeconds(30));
    assertThat(command.networkFaultEvery).isEqualTo(Duration.ofSeconds(6));
    assertThat(command.brokerKillEvery).as("given explicitly").isEqualTo(Duration.ofSeconds(25));
  }

  /** A short window must not space network faults closer than one lasts: they would overlap. */
  @Test
  void aShortWindowKeepsNetworkFaultsApart() {
    ChaosCommand command = new ChaosCommand();
    CommandLine commandLine = new CommandLine(command);
    commandLine.parseArgs("--duration", "30s");
    RunProfile.fitFaultsToWindow(command, commandLine.getParseResult());
    assertThat(command.networkFaultEvery).isGreaterThan(command.networkFaultDuration);
  }

  /**
   * Three processes per service where kills must reach the process-fault floor; two where no floor
   * is claimed, unless told.
   */
  @Test
  void runsThatClaimTheProcessFaultFloorStartThreeInstancesOfEachService() {
    ChaosCommand byDefault = new ChaosCommand();
    new CommandLine(byDefault).parseArgs();
    assertThat(byDefault.orderInstances).isEqualTo(3);
    assertThat(byDefault.paymentInstances).isEqualTo(3);
    assertThat(parsed(RunProfile.LONG, "--long").orderInstances).isEqualTo(3);

    for (RunProfile unclaimed : new RunProfile[] {RunProfile.QUICK, RunProfile.FAULT_FREE}) {
      String option = unclaimed == RunProfile.QUICK ? "--quick" : "--no-faults";
      ChaosCommand command = parsed(unclaimed, option);
      assertThat(command.orderInstances).as(option).isEqualTo(2);
      assertThat(command.paymentInstances).as(option).isEqualTo(2);
      assertThat(parsed(unclaimed, option, "--payment-instances", "4").paymentInstances)
          .as("given explicitly")
          .isEqualTo(4);
    }
  }

  private static ChaosCommand parsed(RunProfile profile, String... args) {
    ChaosCommand command = new ChaosCommand();
    CommandLine commandLine = new CommandLine(command);
    commandLine.parseArgs(args);
    profile.applyTo(command, commandLine.getParseResult());
    return command;
  }
}
