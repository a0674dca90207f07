package dev.inboxoutbox.chaos.extension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CrashInjectorTest {

  private final AtomicInteger halts = new AtomicInteger();
  private final AtomicInteger asked = new AtomicInteger();

  @Test
  void anArmedPointWithProbabilityOneHalts() {
    CrashInjector injector = injector(Map.of(CrashPoint.MID_HANDLER, 1.0), true);

    injector.at(CrashPoint.MID_HANDLER);

    assertThat(halts).hasValue(1);
  }

  @Test
  void aDisarmedPointNeverHalts() {
    CrashInjector injector = injector(Map.of(CrashPoint.MID_HANDLER, 1.0), false);

    injector.at(CrashPoint.MID_HANDLER);

    assertThat(asked).hasValue(1);
    assertThat(halts).hasValue(0);
  }

  @Test
  void theArmingIsAskedOnlyWhenADrawWouldHalt() {
    CrashInjector injector =
        injector(Map.of(CrashPoint.MID_HANDLER, 0.0, CrashPoint.RELAY_AFTER_PUBLISH, 1.0), false);

    for (int i = 0; i < 1_000; i++) {
      injector.at(CrashPoint.MID_HANDLER);
      injector.at(CrashPoint.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);
    }
    injector.at(CrashPoint.RELAY_AFTER_PUBLISH);

    assertThat(asked).hasValue(1);
  }

  @Test
  void aProbabilityOutsideZeroToOneIsRefused() {
    assertThatThrownBy(() -> injector(Map.of(CrashPoint.MID_HANDLER, 1.5), true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[0, 1]");
  }

  private CrashInjector injector(Map<CrashPoint, Double> odds, boolean armed) {
    return new CrashInjector(
        odds,
        () -> {
          asked.incrementAndGet();
          return armed;
        },
        halts::incrementAndGet);
  }
}
