package dev.inboxoutbox.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MachineLoadTest {

  @Test
  void busyIsUserNiceSystemAndInterruptsIdleIncludesIoWait() {
    MachineLoad.Sample sample =
        MachineLoad.Sample.parse("cpu  3527207 9752 564397 2121504 13397 0 57870 8611 0 0");

    assertThat(sample.busy()).isEqualTo(3_527_207L + 9_752 + 564_397 + 0 + 57_870);
    assertThat(sample.idle()).isEqualTo(2_121_504L + 13_397);
    assertThat(sample.stolen()).isEqualTo(8_611L);
  }

  @Test
  void aRunIsTheDifferenceOfTwoSamplesInSeconds() {
    // Two samples around a default chaos run (seed 42, 137 s) on the 2-core development machine.
    MachineLoad.Sample start =
        MachineLoad.Sample.parse("cpu  3527207 9752 564399 2122134 13397 0 57870 8611 0 0");
    MachineLoad.Sample end =
        MachineLoad.Sample.parse("cpu  3548602 9752 568006 2124406 13435 0 58322 8650 0 0");

    MachineLoad run = MachineLoad.between(start, end, 2);

    assertThat(run.busyCpuSeconds()).isEqualTo(254.54, within(0.001));
    assertThat(run.idleCpuSeconds()).isEqualTo(23.10, within(0.001));
    assertThat(run.stolenCpuSeconds()).isEqualTo(0.39, within(0.001));
    assertThat(run.describe())
        .isEqualTo(
            "machine: 2 cores; during the run 255 CPU-seconds busy (all processes), 23 idle, 0.4 stolen");
  }

  @Test
  void aLineThatIsNotTheAggregateIsRefused() {
    assertThatThrownBy(() -> MachineLoad.Sample.parse("cpu0 1 2 3 4 5 6 7 8"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cpu0");
  }
}
