package dev.inboxoutbox.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.report.CpuByComponent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuAccountantTest {

  /** What each component's processes read now; a killed process is no longer in its list. */
  private final List<CpuAccountant.Reading> brokers = new ArrayList<>();

  private final List<CpuAccountant.Reading> orderConsumers = new ArrayList<>();

  private final CpuAccountant accountant = new CpuAccountant("");

  {
    accountant.watch("Kafka brokers", () -> List.copyOf(brokers));
    accountant.watch("order-consumer", () -> List.copyOf(orderConsumers));
  }

  /**
   * An instance killed keeps what its last sample read, its restart counts from its own start, and
   * a process running before the accounting started counts only what it used after.
   */
  @Test
  void aComponentSumsItsProcessesOverRestartsFromTheStartOfTheAccounting() {
    brokers.add(new CpuAccountant.Reading(100, 1, 5_000));
    orderConsumers.add(new CpuAccountant.Reading(200, 2, 700));
    accountant.start();

    brokers.set(0, new CpuAccountant.Reading(100, 1, 5_300));
    orderConsumers.set(0, new CpuAccountant.Reading(200, 2, 1_000));
    accountant.sample();
    // Killed after this sample: the 50 ticks it used before its death are never read.
    orderConsumers.clear();
    accountant.sample();
    orderConsumers.add(new CpuAccountant.Reading(201, 9, 400));
    accountant.sample();
    orderConsumers.set(0, new CpuAccountant.Reading(201, 9, 650));
    accountant.sample();

    assertThat(accountant.used())
        .containsExactly(
            org.assertj.core.api.Assertions.entry("Kafka brokers", new CpuByComponent.Used(1, 3.0)),
            org.assertj.core.api.Assertions.entry(
                "order-consumer", new CpuByComponent.Used(2, 3.0 + 6.5)));
  }

  /** A PID the system gave again to a new process is a process of its own, not a reset counter. */
  @Test
  void aReusedPidWithAnotherStartIsAnotherProcess() {
    accountant.start();
    orderConsumers.add(new CpuAccountant.Reading(300, 10, 900));
    accountant.sample();
    orderConsumers.set(0, new CpuAccountant.Reading(300, 55, 200));
    accountant.sample();

    assertThat(accountant.used().get("order-consumer")).isEqualTo(new CpuByComponent.Used(2, 11.0));
  }

  /**
   * A sum read while a backend exits may miss it once (read from neither the living nor yet the
   * reaped): what was read before stays.
   */
  @Test
  void aReadingBelowTheLastOneNeverTakesCpuBack() {
    accountant.start();
    brokers.add(new CpuAccountant.Reading(100, 1, 1_000));
    accountant.sample();
    brokers.set(0, new CpuAccountant.Reading(100, 1, 940));
    accountant.sample();

    assertThat(accountant.used().get("Kafka brokers")).isEqualTo(new CpuByComponent.Used(1, 10.0));
  }

  /** Samples before the start, or after the stop, change nothing. */
  @Test
  void onlyTheSpanFromStartToStopCounts() {
    brokers.add(new CpuAccountant.Reading(100, 1, 1_000));
    accountant.sample();
    accountant.start();
    brokers.set(0, new CpuAccountant.Reading(100, 1, 1_500));
    accountant.stop();
    brokers.set(0, new CpuAccountant.Reading(100, 1, 9_000));
    accountant.sample();

    assertThat(accountant.used().get("Kafka brokers")).isEqualTo(new CpuByComponent.Used(1, 5.0));
  }

  @Test
  void anInstanceBelongsToTheServiceItsNameStartsWith() {
    assertThat(CpuAccountant.serviceOf("order-consumer-2")).isEqualTo("order-consumer");
    assertThat(CpuAccountant.serviceOf("payment-consumer-12")).isEqualTo("payment-consumer");
  }
}
