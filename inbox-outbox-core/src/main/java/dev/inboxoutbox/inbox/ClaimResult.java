package dev.inboxoutbox.inbox;

/**
 * The answer to a claim: the caller's to run, already done, or the key reused for another request.
 */
public sealed interface ClaimResult {

  ClaimRequest request();

  /**
   * This transaction now owns the key: run the effect and record its outcome with {@link
   * Inbox#complete}. If the transaction rolls back, the claim goes with it.
   */
  record New(ClaimRequest request) implements ClaimResult {}

  /**
   * The key was claimed before with the same request: do not run the effect again; answer with
   * {@link Inbox.Entry#outcome()}. The entry is {@link Inbox.Status#PROCESSING} only for a repeat
   * of a key claimed earlier in the same batch.
   */
  record Duplicate(ClaimRequest request, Inbox.Entry original) implements ClaimResult {}

  /**
   * The key was claimed before for a different request (another hash). Nothing was written; the
   * original is untouched. HTTP answers 422; a consumer dead-letters the message.
   */
  record Conflict(ClaimRequest request, Inbox.Entry original) implements ClaimResult {}
}
