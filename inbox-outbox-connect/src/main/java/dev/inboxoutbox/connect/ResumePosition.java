package dev.inboxoutbox.connect;

import io.debezium.connector.postgresql.PostgresOffsetContext;
import io.debezium.connector.postgresql.SourceInfo;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps a stored resume position from being mistaken for a row of another transaction on restart.
 *
 * <p>A Debezium heartbeat stores the position of the last COMMIT the connector saw: {@code
 * lsn_proc} is where that commit record ends, which is also where the next WAL record starts. When
 * that record is a row of a transaction still open, other than its first, and that transaction is
 * the next to commit, Debezium's restart search ({@code WalPositionLocator}, 3.5 and 3.6) matches
 * the row's LSN to the stored one, resumes at the message after it (the transaction's COMMIT) and
 * filters out every earlier row of the transaction: events lost without an error. (When the first
 * row follows the commit, the search resumes at that transaction's BEGIN and nothing is lost.)
 *
 * <p>One byte earlier the position lies inside the commit record, an LSN no message can carry (WAL
 * records are 8-byte aligned). The search then resumes at the first transaction committed after it,
 * which is what the position meant.
 *
 * <p>{@code lsn_commit}, the position the slot is confirmed to, moves back with it. PostgreSQL may
 * move the slot's restart position up to the confirmed one, and Debezium refuses to start from a
 * stored position before the slot's restart position ("no longer available on the server"): with
 * only {@code lsn_proc} moved, a running-transactions record right after the commit stopped every
 * later start. The commit itself is not sent again either way: decoding starts at the first commit
 * record that begins at or after the confirmed position.
 */
final class ResumePosition {

  private static final String PROCESSED = PostgresOffsetContext.LAST_COMPLETELY_PROCESSED_LSN_KEY;
  private static final String COMMIT = PostgresOffsetContext.LAST_COMMIT_LSN_KEY;
  private static final String MESSAGE_TYPE = SourceInfo.MSG_TYPE_KEY;

  private ResumePosition() {}

  /** The offset to store instead, or empty when {@code offset} cannot be mistaken. */
  static Optional<Map<String, Object>> unambiguous(Map<String, ?> offset) {
    if (offset == null
        || !"COMMIT".equals(String.valueOf(offset.get(MESSAGE_TYPE)))
        || !(offset.get(PROCESSED) instanceof Long processed)
        || !processed.equals(offset.get(COMMIT))) {
      return Optional.empty();
    }
    Map<String, Object> inside = new HashMap<>(offset);
    inside.put(PROCESSED, processed - 1);
    inside.put(COMMIT, processed - 1);
    return Optional.of(inside);
  }
}
