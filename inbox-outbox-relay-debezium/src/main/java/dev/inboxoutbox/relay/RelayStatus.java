package dev.inboxoutbox.relay;

import java.time.Instant;
import java.util.Optional;

/**
 * A snapshot of one relay instance.
 *
 * @param state running, standby, failed, ...
 * @param publishedEvents events this instance published since it was created (repeats included)
 * @param lastPublished the newest event Kafka acknowledged, if any
 * @param restarts runs that ended in failure and were restarted
 * @param lastError why the last run failed, if one did
 */
public record RelayStatus(
    RelayState state,
    long publishedEvents,
    Optional<PublishedEvent> lastPublished,
    long restarts,
    Optional<String> lastError,
    Instant since) {}
