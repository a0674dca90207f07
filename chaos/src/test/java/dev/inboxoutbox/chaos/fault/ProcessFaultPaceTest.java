package dev.inboxoutbox.chaos.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProcessFaultPaceTest {

  private static final Duration DEFAULT_WINDOW = Duration.ofSeconds(120);

  private final ProcessFaultPace pace = ProcessFaultPace.of(DEFAULT_WINDOW, 20, 20, DEFAULT_WINDOW);

  @Test
  void theDefaultWindowAimsAtItsFloorWithAMargin() {
    assertThat(pace.target()).isEqualTo(23);
  }

  @Test
  void aRunBehindOrOnThePaceGoesOnFaulting() {
    assertThat(pace.ahead(0, Duration.ZERO)).isFalse();
    assertThat(pace.ahead(1, Duration.ZERO)).isFalse();
    // 23 per 120 s: 11.5 due at 60 s, so 13 is within the lead of two.
    assertThat(pace.ahead(13, Duration.ofSeconds(60))).isFalse();
    assertThat(pace.ahead(5, Duration.ofSeconds(100))).isFalse();
  }

  @Test
  void aRunTwoFaultsAheadOfThePaceWaits() {
    assertThat(pace.ahead(2, Duration.ZERO)).isTrue();
    assertThat(pace.ahead(14, Duration.ofSeconds(60))).isTrue();
    assertThat(pace.ahead(25, Duration.ofSeconds(120))).isTrue();
    assertThat(pace.ahead(24, Duration.ofSeconds(300))).isFalse();
  }

  @Test
  void aShorterWindowKeepsItsScaledFloorAndALongerOneTheDefaultRate() {
    assertThat(ProcessFaultPace.of(Duration.ofSeconds(60), 10, 20, DEFAULT_WINDOW).target())
        .isEqualTo(12);
    // --long: ten minutes keep 20 per two minutes, not the unscaled floor of 20 per run.
    assertThat(ProcessFaultPace.of(Duration.ofSeconds(600), 20, 20, DEFAULT_WINDOW).target())
        .isEqualTo(115);
  }

  @Test
  void aWindowMustBePositive() {
    assertThatThrownBy(() -> ProcessFaultPace.of(Duration.ZERO, 20, 20, DEFAULT_WINDOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("window must be positive");
  }
}
