package dev.inboxoutbox.chaos.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.tools.LoadProducer;
import org.junit.jupiter.api.Test;

class LoadAcknowledgedTest {

  @Test
  void aLoadKafkaAcknowledgedInFullPasses() {
    LoadProducer.Sent sent = new LoadProducer.Sent();
    sent.records.set(120);
    Invariant invariant = Verifier.loadAcknowledged(sent);
    assertThat(invariant.passed()).isTrue();
    assertThat(invariant.checked()).isEqualTo(120);
  }

  @Test
  void failedSendsFailTheRunAsWhatTheyAreNamingTheFirst() {
    LoadProducer.Sent sent = new LoadProducer.Sent();
    sent.records.set(120);
    sent.failedSends.set(2);
    sent.firstFailure.set(
        "k-1: org.apache.kafka.common.errors.TimeoutException: Expiring 1 record(s)");
    Invariant invariant = Verifier.loadAcknowledged(sent);
    assertThat(invariant.passed()).isFalse();
    assertThat(invariant.violations()).isEqualTo(2);
    assertThat(invariant.detail())
        .contains("2 sends failed")
        .contains("k-1: org.apache.kafka.common.errors.TimeoutException");
  }
}
