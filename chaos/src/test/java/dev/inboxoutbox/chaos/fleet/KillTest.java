package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KillTest {

  @Test
  void aKillRelativeToTheLoadsStartKeepsEverythingButTheTimeBase() {
    Kill atEpoch = new Kill(1_000_005_250L, "relay-leader", "order-consumer-2", true, false);

    assertThat(atEpoch.relativeTo(1_000_000_000L))
        .isEqualTo(new Kill(5_250, "relay-leader", "order-consumer-2", true, false));
  }
}
