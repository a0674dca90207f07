package dev.inboxoutbox.connect;

import io.debezium.annotation.ConnectorSpecific;
import io.debezium.connector.postgresql.snapshot.lock.NoSnapshotLock;
import io.debezium.connector.postgresql.snapshot.lock.SharedSnapshotLock;
import io.debezium.connector.postgresql.snapshot.query.SelectAllSnapshotQuery;

/**
 * PostgreSQL's snapshot query and locks, marked for {@link OutboxConnector}. Debezium picks the
 * implementation of a snapshot mode among those marked for the configured connector class, compared
 * by identity, so PostgreSQL's own (marked for {@code PostgresConnector}) did not count for this
 * subclass: Debezium fell back to any implementation of the mode's name on the class path and
 * logged a WARN at every start. Found through {@code META-INF/services}; behaviour unchanged.
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
