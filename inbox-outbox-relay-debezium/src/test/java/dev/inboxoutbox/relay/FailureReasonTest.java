package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.SocketException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FailureReasonTest {

  @Test
  void namesTheRelayStepThatFailedAndTheRootCauseBeneathWrappers() {
    Exception failure =
        new ExecutionException(
            new RelayException(
                "marking 379 outbox rows published failed",
                new IllegalStateException("I/O error", new SocketException("Broken pipe"))));

    assertThat(FailureReason.of(failure, ""))
        .isEqualTo(
            "RelayException: marking 379 outbox rows published failed;"
                + " root cause: SocketException: Broken pipe");
  }

  @Test
  void withoutARelayReasonNamesTheOutermostExceptionWithAMessageOfItsOwn() {
    Exception failure =
        new RuntimeException(
            new IllegalStateException(
                "Could not execute heartbeat action query",
                new SocketException("Connection reset")));

    assertThat(FailureReason.of(failure, ""))
        .isEqualTo(
            "IllegalStateException: Could not execute heartbeat action query;"
                + " root cause: SocketException: Connection reset");
  }

  @Test
  void aFailureWithoutCauseIsNamedOnce() {
    assertThat(FailureReason.of(new RelayException("lost the leadership lock session"), ""))
        .isEqualTo("RelayException: lost the leadership lock session");
  }

  @Test
  void failuresWhileStoppingAreSuppressedNotNamed() {
    RelayException failure = new RelayException("marking 2 outbox rows published failed");
    failure.addSuppressed(new IllegalStateException("Engine is already being shutting down"));

    assertThat(FailureReason.of(failure, "")).doesNotContain("shutting down");
  }

  @Test
  void keepsAMessageOfSeveralLinesOnOne() {
    assertThat(FailureReason.of(new IllegalStateException("FATAL: terminating\n  Position: 8"), ""))
        .isEqualTo("IllegalStateException: FATAL: terminating Position: 8");
  }

  @Test
  void masksThePasswordAndSecretSettings() {
    Exception failure =
        new IllegalArgumentException(
            "invalid configuration {database.password=s3cret, sasl.jaas.config=xyz, name=relay}"
                + " for user with s3cret");

    assertThat(FailureReason.of(failure, "s3cret"))
        .doesNotContain("s3cret")
        .contains("database.password=****")
        .contains("sasl.jaas.config=****")
        .contains("name=relay");
  }
}
