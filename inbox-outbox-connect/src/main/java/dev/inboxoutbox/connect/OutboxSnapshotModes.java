package dev.inboxoutbox.connect;

import io.debezium.annotation.ConnectorSpecific;
import io.debezium.connector.postgresql.snapshot.lock.NoSnapshotLock;
import io.debezium.connector.postgresql.snapshot.lock.SharedSnapshotLock;
import io.debezium.connector.postgresql.snapshot.query.SelectAllSnapshotQuery;

/**
 * PostgreSQL's snapshot query and locks, marked for {@link OutboxConnector}. Debezium picks the
 * implementation of a snapshot mode among those marked for the configured connector class, compared
 * by identity, so PostgreSQL's own (marked for {@code PostgresConnector}) do not count for this
 * subclass: without these Debezium would take any implementation of the mode's name on the class
 * path and log a WARN at every start. Found through {@code META-INF/services}; each behaves as the
 * PostgreSQL class it extends.
 */
public final class OutboxSnapshotModes {

  private OutboxSnapshotModes() {}

  /** {@code snapshot.query.mode=select_all}, the default. */
  @ConnectorSpecific(connector = OutboxConnector.class)
  public static class SelectAll extends SelectAllSnapshotQuery {}

  /** {@code snapshot.locking.mode=none}, PostgreSQL's default. */
  @ConnectorSpecific(connector = OutboxConnector.class)
  public static class NoLock extends NoSnapshotLock {}

  /** {@code snapshot.locking.mode=shared}. */
  @ConnectorSpecific(connector = OutboxConnector.class)
  public static class SharedLock extends SharedSnapshotLock {}
}
