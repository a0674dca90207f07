package dev.inboxoutbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;

/** The builder is the one way to a relay: it refuses what is missing and builds an idle relay. */
class OutboxRelayBuilderTest {

  private static final RelaySettings SETTINGS =
      RelaySettings.builder()
          .jdbcUrl("jdbc:postgresql://never-connected.invalid:5432/shop")
          .kafkaBootstrapServers("never-connected.invalid:9092")
          .build();

  @Test
  void settingsAndAListenerAreRequired() {
    assertThatNullPointerException()
        .isThrownBy(() -> OutboxRelay.builder(null))
        .withMessage("settings");
    assertThatNullPointerException()
        .isThrownBy(() -> OutboxRelay.builder(SETTINGS).listener(null))
        .withMessage("listener");
  }

  @Test
  void aBuiltRelayHasNotStartedUntilAskedTo() {
    try (OutboxRelay relay = OutboxRelay.builder(SETTINGS).listener(events -> {}).build()) {
      assertThat(relay.state()).isEqualTo(RelayState.NEW);
      assertThat(relay.status().publishedEvents()).isZero();
    }
  }
}
