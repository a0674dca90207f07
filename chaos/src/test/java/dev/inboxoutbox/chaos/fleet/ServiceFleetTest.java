package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServiceFleetTest {

  @Test
  void atMostOneKillInTenHitsAStartingInstance() {
    assertThat(ServiceFleet.startUpKillAllowed(0, 0)).as("the first kill").isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(8, 0)).as("the ninth").isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(9, 0)).as("the tenth").isTrue();
    assertThat(ServiceFleet.startUpKillAllowed(10, 1)).isFalse();
    assertThat(ServiceFleet.startUpKillAllowed(19, 1)).as("the twentieth, after one").isTrue();
    assertThat(ServiceFleet.startUpKillAllowed(19, 2)).isFalse();
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
