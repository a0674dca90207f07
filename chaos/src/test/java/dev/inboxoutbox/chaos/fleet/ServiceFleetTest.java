package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServiceFleetTest {

  @Test
  void atMostOneKillInFiveHitsAStartingInstance() {
    assertThat(ServiceFleet.startUpKillAllowed(0, 0)).as("the first kill").isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(3, 0)).as("the fourth").isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(4, 0)).as("the fifth").isTrue();
    assertThat(ServiceFleet.startUpKillAllowed(5, 1)).isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(9, 1)).isTrue();
    assertThat(ServiceFleet.startUpKillAllowed(19, 3)).as("the twentieth, after three").isTrue();
    assertThat(ServiceFleet.startUpKillAllowed(19, 4)).isFalse();
  }

  @Test
  void aCrashPointDuringAnOutageIsACrashPoint() {
    assertThat(ServiceFleet.exitDuringOutage(ServiceFleet.CRASH_POINT_STATUS, true)).isFalse();
    assertThat(ServiceFleet.exitDuringOutage(1, true))
        .as("a start-up that failed without its database")
        .isTrue();
    assertThat(ServiceFleet.exitDuringOutage(ServiceFleet.CRASH_POINT_STATUS, false)).isFalse();
  }
}
