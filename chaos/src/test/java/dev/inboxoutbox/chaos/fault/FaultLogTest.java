package dev.inboxoutbox.chaos.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.fault.FaultLog.Kind;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FaultLogTest {

  private final Instant origin = Instant.parse("2026-11-23T10:00:00Z");
  private final AtomicReference<Instant> now = new AtomicReference<>(origin);
  private final FaultLog log = new FaultLog(origin, now::get);

  @Test
  void anInfrastructureFaultIsActiveFromItsBeginUntilItsEndOnTheRunsTimeBase() {
    now.set(origin.plusMillis(1500));
    FaultLog.Ongoing outage = log.begin(Kind.POSTGRES_CRASH, "postgres");
    assertThat(log.infrastructureFaultActive()).isTrue();

    now.set(origin.plusMillis(4000));
    outage.end();

    assertThat(log.infrastructureFaultActive()).isFalse();
    assertThat(log.all())
        .containsExactly(
            new FaultLog.Fault(Kind.POSTGRES_CRASH, "postgres", 1500, Optional.of(4000L)));
  }

  @Test
  void aProcessKillIsAnInstantAndNoInfrastructureFault() {
    now.set(origin.plusMillis(200));
    log.instant(Kind.PROCESS_KILL, "order-consumer-1");

    assertThat(log.infrastructureFaultActive()).isFalse();
    assertThat(log.all().get(0).endMillis()).contains(200L);
  }

  @Test
  void anInfrastructureFaultCountsAsRecentUntilTheAftermathWindowHasPassed() {
    FaultLog.Ongoing outage = log.begin(Kind.POSTGRES_CRASH, "postgres");
    now.set(origin.plusMillis(5000));
    outage.end();

    now.set(origin.plusMillis(19_000));
    assertThat(log.infrastructureFaultWithin(15_000)).isTrue();
    now.set(origin.plusMillis(20_001));
    assertThat(log.infrastructureFaultWithin(15_000)).isFalse();
  }

  @Test
  void aProcessKillIsNoInfrastructureFault() {
    log.instant(Kind.PROCESS_KILL, "order-consumer-1");

    assertThat(log.infrastructureFaultWithin(60_000)).isFalse();
  }
}
