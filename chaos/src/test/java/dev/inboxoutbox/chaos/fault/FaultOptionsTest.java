package dev.inboxoutbox.chaos.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultOptionsTest {

  @Test
  void theDefaultRunInjectsProcessKillsCrashPointsADatabaseCrashAndABrokerKill() {
    assertThat(FaultOptions.parseKinds(FaultOptions.DEFAULT_KINDS))
        .containsExactlyInAnyOrder(
            Kind.PROCESS_KILL, Kind.CRASH_POINT, Kind.POSTGRES_CRASH, Kind.BROKER_KILL);
  }

  @Test
  void anUnknownFaultIsRejectedWithTheKnownOnes() {
    assertThatThrownBy(() -> FaultOptions.parseKinds("process-kill,disk-full"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown fault 'disk-full'")
        .hasMessageContaining("postgres-crash");
  }

  @Test
  void aNetworkFaultIsChosenWithItsOwnOptionNotWithFaults() {
    assertThatThrownBy(() -> FaultOptions.parseKinds("process-kill,network-reset"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--network-faults")
        .hasMessageNotContaining(
            "known: process-kill, crash-point, postgres-crash, postgres-failover, broker-kill, network");
  }

  @Test
  void aBrokerKillNeedsTheClusterOfBrokerProcesses() {
    assertThatThrownBy(() -> faults(Set.of(Kind.BROKER_KILL), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--kafka-brokers 3");
  }

  @Test
  void theUnsafeFailoverControlNeedsFailovers() {
    Duration second = Duration.ofSeconds(1);
    assertThatThrownBy(
            () ->
                new FaultOptions(
                    Set.of(Kind.PROCESS_KILL), 1, second, second, second, second, second, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("postgres-failover");
  }

  @Test
  void aKindPrintsAsItIsWrittenOnTheCommandLine() {
    assertThat(FaultOptions.nameOf(Kind.POSTGRES_CRASH)).isEqualTo("postgres-crash");
  }

  private static FaultOptions faults(Set<Kind> kinds, int brokers) {
    Duration second = Duration.ofSeconds(1);
    return new FaultOptions(kinds, brokers, second, second, second, second, second, false);
  }
}
