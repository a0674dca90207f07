package dev.inboxoutbox.relay;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one relay instance.
 *
 * @param state running, standby, failed, ...
 * @param publishedEvents events this instance published since it was created (repeats included)
 * @param lastPublished the newest event Kafka acknowledged, if any
 * @param restarts runs that ended in failure and were restarted
 * @param lastError why the last run failed, if one did
 * @param failoverRisks what a failover to a standby would cost, as read by the leading run every
 *     few seconds: a slot the standby lacks, or events published before the standby had them; empty
 *     when the slot is carried over or no standby streams from the database
 */
public record RelayStatus(
    RelayState state,
    long publishedEvents,
    Optional<PublishedEvent> lastPublished,
    long restarts,
    Optional<String> lastError,
    Instant since,
    List<String> failoverRisks) {

  public RelayStatus {
    failoverRisks = List.copyOf(failoverRisks);
  }
}
