package dev.inboxoutbox.outbox;

/** What happens to an outbox row once it is written. */
public enum OutboxPolicy {
  /**
   * The row stays, the relay stamps {@code published_at} once Kafka acknowledged it, and retention
   * deletes it later. Rows can be inspected and the relay's lag measured in rows.
   */
  KEEP,
  /**
   * The row is deleted in the same transaction right after the insert. The insert still reaches the
   * write-ahead log, which is all the relay reads; the table stays empty.
   */
  DELETE_AFTER_INSERT
}
