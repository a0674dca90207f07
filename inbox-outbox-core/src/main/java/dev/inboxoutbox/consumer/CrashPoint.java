package dev.inboxoutbox.consumer;

/** Named moments where chaos testing kills a consumer. */
public enum CrashPoint {
  /** Inside the handler, before the transaction commits: nothing of the batch may survive. */
  MID_HANDLER,
  /** After the database commit, before the Kafka offsets: redelivery must be absorbed. */
  AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT,
  /**
   * In the relay, after Kafka acknowledged a batch, before its offsets are stored: it is sent
   * again.
   */
  RELAY_AFTER_PUBLISH
}
