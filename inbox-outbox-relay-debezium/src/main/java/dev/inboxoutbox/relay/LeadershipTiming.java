package dev.inboxoutbox.relay;

import java.time.Duration;

/**
 * How often the engine's heartbeat lets the slot advance while the outbox is quiet, how often the
 * relay competes for and checks the leadership lock, and how long it waits before restarting a
 * failed run; see the {@link RelaySettings.Builder} setters of the same names.
 */
record LeadershipTiming(
    Duration heartbeatInterval,
    Duration standbyPollInterval,
    Duration leadershipCheckInterval,
    Duration restartBackoffMin,
    Duration restartBackoffMax) {

  LeadershipTiming {
    RelaySettings.positive(heartbeatInterval, "heartbeatInterval");
    RelaySettings.positive(standbyPollInterval, "standbyPollInterval");
    RelaySettings.positive(leadershipCheckInterval, "leadershipCheckInterval");
    RelaySettings.positive(restartBackoffMin, "restartBackoffMin");
    RelaySettings.positive(restartBackoffMax, "restartBackoffMax");
    if (restartBackoffMax.compareTo(restartBackoffMin) < 0) {
      throw new IllegalArgumentException("restartBackoffMax must not be below restartBackoffMin");
    }
  }
}
