package dev.inboxoutbox.chaos.extension;

/** Named moments where a chaos run halts a service. */
public enum CrashPoint {
  /** Inside the handler's transaction, before it commits: nothing of the batch may survive. */
  MID_HANDLER,
  /** After the database commit, before the Kafka offsets: redelivery must be absorbed. */
  AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT,
  /**
   * In the relay, after Kafka acknowledged a batch, before its offsets are stored: it is sent
   * again.
   */
  RELAY_AFTER_PUBLISH
}
