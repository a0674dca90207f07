package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.OperatorError;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Moves a filled inbox of schema v1 (primary key on the four text columns) to schema v2 (primary
 * key on the key digest) while consumers of both versions keep running. Every step is online: the
 * digest is filled in page ranges of short transactions, its unique index is built concurrently,
 * and the primary key moves in one brief lock. See
 * docs/operations.md#upgrading-the-inbox-to-schema-v2.
 *
 * <p>{@link #prepare} is safe at any time and repeatable; instances of the new version claim once
 * it has finished. {@link #finish} is for when no instance of the previous version runs any more:
 * their statements name the v1 key, which it removes, so any left would fail rather than claim.
 */
final class InboxUpgrade {

  /** The digest's unique index before it becomes the primary key (it is renamed then). */
  static final String DIGEST_INDEX = "inbox_key_hash_key";

  /** Pages per backfill transaction: short enough that a consumer waits briefly on a row lock. */
  private static final int PAGES_PER_STEP = 200;

  private static final String PRIMARY_KEY_ON_DIGEST =
      """
      SELECT EXISTS (
          SELECT FROM pg_constraint c
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
          WHERE c.conrelid = to_regclass('inbox') AND c.contype = 'p'
            AND array_length(c.conkey, 1) = 1 AND a.attname = 'key_hash')
      """;

  private static final String PAGES =
      """
      SELECT pg_relation_size('inbox') / current_setting('block_size')::bigint
      """;

  // A TID range scan reads only the range's pages, so each step costs the same however far the
  // backfill has come; a filter on key_hash IS NULL alone would rescan the filled part every time.
  private static final String FILL_PAGES =
      """
      UPDATE inbox
         SET key_hash = inbox_key_hash(tenant, principal, operation, idempotency_key)
       WHERE ctid >= format('(%s,0)', ?::bigint)::tid
         AND ctid < format('(%s,0)', ?::bigint)::tid
         AND key_hash IS NULL
      """;

  private static final String FILL_REST =
      """
      UPDATE inbox
         SET key_hash = inbox_key_hash(tenant, principal, operation, idempotency_key)
       WHERE key_hash IS NULL
      """;

  private static final String DIGEST_INDEX_STATE =
      """
      SELECT x.indisvalid FROM pg_index x
      WHERE x.indexrelid = to_regclass('inbox_key_hash_key')
      """;

  private static final String BUILD_DIGEST_INDEX =
      "CREATE UNIQUE INDEX CONCURRENTLY inbox_key_hash_key ON inbox (key_hash)";

  private static final String DROP_INVALID_DIGEST_INDEX =
      "DROP INDEX CONCURRENTLY IF EXISTS inbox_key_hash_key";

  /**
   * NOT NULL without a long lock: a CHECK added NOT VALID takes a brief lock, its validation scans
   * under a lock that lets writers go on, and SET NOT NULL then trusts the validated check.
   */
  private static final String[] REQUIRE_DIGEST = {
    "ALTER TABLE inbox ADD CONSTRAINT inbox_key_hash_present CHECK (key_hash IS NOT NULL) NOT VALID",
    "ALTER TABLE inbox VALIDATE CONSTRAINT inbox_key_hash_present",
    "ALTER TABLE inbox ALTER COLUMN key_hash SET NOT NULL",
    "ALTER TABLE inbox DROP CONSTRAINT inbox_key_hash_present"
  };

  private static final String MOVE_PRIMARY_KEY =
      """
      ALTER TABLE inbox
          DROP CONSTRAINT inbox_pkey,
          ADD CONSTRAINT inbox_pkey PRIMARY KEY USING INDEX inbox_key_hash_key
      """;

  private static final String[] OUTCOME_INDEX_FOR_BODIES = {
    """
    CREATE INDEX CONCURRENTLY IF NOT EXISTS inbox_outcome_body_expires_at_idx
        ON inbox (outcome_expires_at)
        WHERE outcome_body IS NOT NULL AND outcome_pruned_at IS NULL
    """,
    "DROP INDEX CONCURRENTLY IF EXISTS inbox_outcome_expires_at_idx"
  };

  private final DataSource dataSource;
  private final PrintStream out;

  InboxUpgrade(DataSource dataSource, PrintStream out) {
    this.dataSource = dataSource;
    this.out = out;
  }

  /**
   * Applies the migrations (the digest column and the trigger that fills it for other writers),
   * fills the digest of existing rows and builds its unique index.
   *
   * @return false when the inbox is on schema v2 already (nothing to do)
   */
  boolean prepare() throws SQLException {
    int migrations = InboxOutboxSchema.migrate(dataSource);
    out.printf("schema migrations applied: %d%n", migrations);
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      if (primaryKeyOnDigest(connection)) {
        out.println("the inbox is on schema v2 already");
        return false;
      }
      long filled = fill(connection);
      out.printf("key digests filled: %d rows%n", filled);
      buildDigestIndex(connection);
      out.println(
          "prepared: instances of this version claim through the digest. Once no instance of the"
              + " previous version runs: iox inbox-upgrade finish");
      return true;
    }
  }

  /** Moves the primary key to the digest and narrows the outcome index to rows with a body. */
  void finish() throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      if (!primaryKeyOnDigest(connection)) {
        if (!Boolean.TRUE.equals(digestIndexValid(connection))) {
          throw new OperatorError(
              "the key digest is not indexed yet: run iox inbox-upgrade prepare first");
        }
        try (Statement statement = connection.createStatement()) {
          for (String step : REQUIRE_DIGEST) {
            statement.execute(step);
          }
          statement.execute("SET lock_timeout = '10s'");
          statement.execute(MOVE_PRIMARY_KEY);
          statement.execute("RESET lock_timeout");
        }
        out.println("primary key moved to the key digest");
      }
      try (Statement statement = connection.createStatement()) {
        for (String step : OUTCOME_INDEX_FOR_BODIES) {
          statement.execute(step);
        }
      }
      out.println("finished: the inbox is on schema v2");
    }
  }

  static boolean primaryKeyOnDigest(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(PRIMARY_KEY_ON_DIGEST)) {
      result.next();
      return result.getBoolean(1);
    }
  }

  private long fill(Connection connection) throws SQLException {
    long pages;
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(PAGES)) {
      result.next();
      pages = result.getLong(1);
    }
    long filled = 0;
    try (PreparedStatement statement = connection.prepareStatement(FILL_PAGES)) {
      for (long from = 0; from < pages; from += PAGES_PER_STEP) {
        statement.setLong(1, from);
        statement.setLong(2, from + PAGES_PER_STEP);
        filled += statement.executeUpdate();
      }
    }
    // Rows written while the ranges were read (by writers that left the digest to the trigger,
    // or moved by updates) are filled here; on a table filled range by range they are few.
    try (Statement statement = connection.createStatement()) {
      filled += statement.executeUpdate(FILL_REST);
    }
    return filled;
  }

  private void buildDigestIndex(Connection connection) throws SQLException {
    Boolean valid = digestIndexValid(connection);
    if (Boolean.TRUE.equals(valid)) {
      return;
    }
    try (Statement statement = connection.createStatement()) {
      if (valid != null) {
        // A concurrent build that failed leaves an invalid index behind; it is built anew.
        statement.execute(DROP_INVALID_DIGEST_INDEX);
      }
      statement.execute(BUILD_DIGEST_INDEX);
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())) {
        throw new OperatorError(
            "two stored keys share a digest, so the digest cannot become the key: "
                + e.getMessage()
                + " (keep schema v1 and report it)",
            e);
      }
      throw e;
    }
  }

  /** Null when the index does not exist, else whether a concurrent build completed it. */
  private static Boolean digestIndexValid(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(DIGEST_INDEX_STATE)) {
      return result.next() ? result.getBoolean(1) : null;
    }
  }
}
