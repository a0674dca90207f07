package dev.inboxoutbox.spring;

import dev.inboxoutbox.relay.OutboxRelay;
import dev.inboxoutbox.relay.RelayStatus;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the relay runs or stands by (a standby is healthy: another instance leads), DOWN when
 * its last run failed, OUT_OF_SERVICE once stopped. Details: state, events published, last event,
 * restarts, last error (what failed and its root cause).
 */
final class RelayHealthIndicator extends AbstractHealthIndicator {

  private final OutboxRelay relay;

  RelayHealthIndicator(OutboxRelay relay) {
    super("outbox relay health check failed");
    this.relay = relay;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    RelayStatus status = relay.status();
    switch (status.state()) {
      case RUNNING, STANDBY, NEW -> builder.up();
      case FAILED -> builder.down();
      case STOPPED -> builder.outOfService();
    }
    builder
        .withDetail("state", status.state().name())
        .withDetail("since", status.since().toString())
        .withDetail("publishedEvents", status.publishedEvents())
        .withDetail("restarts", status.restarts());
    status
        .lastPublished()
        .ifPresent(event -> builder.withDetail("lastPublishedEventId", event.eventId()));
    status.lastError().ifPresent(error -> builder.withDetail("lastError", error));
    if (!status.failoverRisks().isEmpty()) {
      builder.withDetail("failoverRisks", status.failoverRisks());
    }
  }
}
