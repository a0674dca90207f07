package dev.inboxoutbox.chaos.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LoadAcknowledgedTest {

  @Test
  void aLoadKafkaAcknowledgedInFullPasses() {
    Invariant invariant = Verifier.loadAcknowledged(120, 0, null);
    assertThat(invariant.passed()).isTrue();
    assertThat(invariant.checked()).isEqualTo(120);
  }

  @Test
  void failedSendsFailTheRunAsWhatTheyAreNamingTheFirst() {
    Invariant invariant =
        Verifier.loadAcknowledged(
            120, 2, "k-1: org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s)");
    assertThat(invariant.passed()).isFalse();
    assertThat(invariant.violations()).isEqualTo(2);
    assertThat(invariant.detail())
        .contains("2 sends failed")
        .contains("k-1: org.apache.kafka.common.errors.TimeoutException");
  }
}
