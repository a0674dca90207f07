package dev.inboxoutbox.inbox;

/** Where a claimed key stands. */
public enum InboxStatus {
  /**
   * Claimed; the outcome is not recorded yet (only ever visible inside the claiming transaction).
   */
  PROCESSING,
  /** The effect was applied; the stored outcome is a success. */
  COMPLETED,
  /** The request was rejected for a business reason; the stored rejection is replayed. */
  FAILED
}
