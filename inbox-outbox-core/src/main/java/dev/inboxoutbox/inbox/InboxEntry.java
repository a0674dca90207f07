package dev.inboxoutbox.inbox;

import java.time.Instant;
import java.util.Optional;

/**
 * A stored claim as a duplicate or conflicting request sees it.
 *
 * @param outcome empty while {@link InboxStatus#PROCESSING}, and after retention pruned the body
 *     (then {@link #outcomePrunedAt()} says when)
 */
public record InboxEntry(
    Scope scope,
    IdempotencyKey key,
    RequestHash requestHash,
    InboxStatus status,
    Optional<Outcome> outcome,
    Instant createdAt,
    Instant expiresAt,
    Optional<Instant> outcomePrunedAt) {}
