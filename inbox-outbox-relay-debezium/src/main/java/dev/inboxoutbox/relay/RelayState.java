package dev.inboxoutbox.relay;

/** Where a relay instance stands. */
public enum RelayState {
  /** Created, not started yet. */
  NEW,
  /** Another instance holds the leadership lock; this one waits to take over. */
  STANDBY,
  /** This instance holds the lock and its Debezium engine streams the outbox to Kafka. */
  RUNNING,
  /**
   * The last run failed; the relay restarts after a backoff (see {@link RelayStatus#lastError}).
   */
  FAILED,
  /** Closed. */
  STOPPED
}
