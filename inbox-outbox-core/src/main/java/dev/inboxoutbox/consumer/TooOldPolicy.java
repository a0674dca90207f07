package dev.inboxoutbox.consumer;

/**
 * What to do with a record older than its scope's key retention: its key may already have been
 * deleted, so the inbox could no longer recognise it as a repeat.
 */
public enum TooOldPolicy {
  /** Dead-letter it with reason {@link DeadLetterReason#TOO_OLD} (default). */
  DEAD_LETTER,
  /**
   * Apply it anyway; counted and logged as a warning. Only for consumers whose effect is harmless
   * to repeat.
   */
  APPLY
}
