package dev.inboxoutbox.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CrashInjectorTest {

  @Test
  void aDisarmedPointNeverHalts() {
    AtomicInteger asked = new AtomicInteger();
    CrashInjector injector =
        CrashInjector.halting(
            Map.of(CrashPoint.MID_HANDLER, 1.0),
            () -> {
              asked.incrementAndGet();
              return false;
            });

    // Were the arming ignored, this would halt the test JVM and fail the build.
    injector.at(CrashPoint.MID_HANDLER);

    assertThat(asked).hasValue(1);
  }

  @Test
  void theArmingIsAskedOnlyWhenADrawWouldHalt() {
    AtomicInteger asked = new AtomicInteger();
    CrashInjector injector =
        CrashInjector.halting(
            Map.of(CrashPoint.MID_HANDLER, 0.0, CrashPoint.RELAY_AFTER_PUBLISH, 1.0),
            () -> {
              asked.incrementAndGet();
              return false;
            });

    for (int i = 0; i < 1_000; i++) {
      injector.at(CrashPoint.MID_HANDLER);
      injector.at(CrashPoint.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);
    }
    injector.at(CrashPoint.RELAY_AFTER_PUBLISH);

    assertThat(asked).hasValue(1);
  }

  @Test
  void aProbabilityOutsideZeroToOneIsRefused() {
    assertThatThrownBy(() -> CrashInjector.halting(Map.of(CrashPoint.MID_HANDLER, 1.5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[0, 1]");
  }
}
