package dev.inboxoutbox.chaos.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.chaos.fault.NetworkChaos.Fault;
import dev.inboxoutbox.devstack.TcpProxy;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NetworkChaosTest {

  @Test
  void theFaultListNamesKindsInAnyCaseAndNoneMeansNoFault() {
    assertThat(Fault.parseList("latency, RESET,blackhole"))
        .containsExactlyInAnyOrder(Fault.LATENCY, Fault.RESET, Fault.BLACKHOLE);
    assertThat(Fault.parseList("none")).isEmpty();
  }

  @Test
  void anUnknownFaultIsRejectedWithTheKindsThatExist() {
    assertThatThrownBy(() -> Fault.parseList("latency,partition"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'partition'")
        .hasMessageContaining("latency, reset, blackhole or none");
  }

  @Test
  void aFaultLastingAsLongAsTheIntervalIsRejectedBecauseFaultsWouldOverlap() {
    assertThatThrownBy(
            () ->
                new NetworkChaos.Settings(
                    Set.of(Fault.BLACKHOLE),
                    Duration.ZERO,
                    Duration.ofSeconds(5),
                    Duration.ofMillis(100),
                    Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overlap");
  }

  @Test
  void aJdbcUrlIsPointedAtTheProxyKeepingDatabaseAndParameters() throws Exception {
    String url = "jdbc:postgresql://localhost:54321/iox_42?sslmode=disable";
    assertThat(TcpProxy.jdbcUpstream(url).getPort()).isEqualTo(54321);
    try (TcpProxy proxy = new TcpProxy("postgres", TcpProxy.jdbcUpstream(url))) {
      assertThat(proxy.jdbcUrlThrough(url))
          .isEqualTo("jdbc:postgresql://" + proxy.hostAndPort() + "/iox_42?sslmode=disable");
    }
  }
}
