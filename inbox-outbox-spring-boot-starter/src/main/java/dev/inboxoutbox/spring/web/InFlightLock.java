package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.ClaimRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Tells "the first request with this key is still running" apart without waiting for it. A claim on
 * a key that another open transaction has claimed waits on the unique index until that transaction
 * ends; for HTTP, answering 409 at once is better than holding the connection. Every idempotent
 * endpoint first takes a transaction-scoped advisory lock on its (scope, key): if another request
 * holds it, that request is in flight. The lock goes with the transaction.
 */
final class InFlightLock {

  private static final String TRY_LOCK = "SELECT pg_try_advisory_xact_lock(?)";

  private InFlightLock() {}

  /** Whether this transaction now holds the key's lock; false while another request holds it. */
  static boolean tryAcquire(Connection transaction, ClaimRequest claim) throws SQLException {
    try (PreparedStatement statement = transaction.prepareStatement(TRY_LOCK)) {
      statement.setLong(1, lockId(claim));
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getBoolean(1);
      }
    }
  }

  /**
   * 64 bits of SHA-256 over the scope and key; a collision between two keys in flight at the same
   * moment would only answer one of them 409 once.
   */
  private static long lockId(ClaimRequest claim) {
    String scoped =
        String.join(
            "\u001f",
            "iox-http",
            claim.scope().tenant(),
            claim.scope().principal(),
            claim.scope().operation(),
            claim.key().value());
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(scoped.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(digest).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }
}
