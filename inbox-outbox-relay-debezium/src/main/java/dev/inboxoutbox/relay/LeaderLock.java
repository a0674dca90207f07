package dev.inboxoutbox.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One relay leader per slot: a session-level advisory lock held by the leader's lock connection for
 * as long as it runs the engine (ADR 0005). The session ending releases it, whatever ended it.
 */
final class LeaderLock {

  /** Class id of the advisory lock; the object id is the slot name's hash. */
  private static final int LOCK_CLASS_ID = 0x10C5;

  private LeaderLock() {}

  /** Takes the lock on {@code session} if no other session holds it; never waits. */
  static boolean tryAcquire(Connection session, String slotName) throws SQLException {
    try (PreparedStatement statement =
        session.prepareStatement("SELECT pg_try_advisory_lock(?, hashtext(?))")) {
      statement.setInt(1, LOCK_CLASS_ID);
      statement.setString(2, slotName);
      return firstBoolean(statement);
    }
  }

  /** Whether the slot exists, read by the leader before it starts the engine. */
  static boolean slotExists(Connection session, String slotName) throws SQLException {
    try (PreparedStatement statement =
        session.prepareStatement(
            "SELECT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = ?)")) {
      statement.setString(1, slotName);
      return firstBoolean(statement);
    }
  }

  private static boolean firstBoolean(PreparedStatement statement) throws SQLException {
    try (ResultSet row = statement.executeQuery()) {
      row.next();
      return row.getBoolean(1);
    }
  }
}
