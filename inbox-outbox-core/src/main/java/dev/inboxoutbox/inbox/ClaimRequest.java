package dev.inboxoutbox.inbox;

import java.util.Objects;

/** One key to claim in a scope, with the hash of the request it guards. */
public record ClaimRequest(Scope scope, IdempotencyKey key, RequestHash requestHash) {

  public ClaimRequest {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(requestHash, "requestHash");
  }
}
