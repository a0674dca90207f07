package dev.inboxoutbox.inbox;

import dev.inboxoutbox.inbox.Inbox.Retention;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** The inbox's SQL, every value bound; rows travel as arrays so a batch is one round trip. */
final class InboxStatements {

  /**
   * Claims every offered key that is free and, for the others, returns the row that holds the key.
   * A key is found through its digest ({@link KeyDigest}, the primary key of schema v2); the stored
   * text columns come back so that a digest shared by two keys is caught, never taken for a repeat.
   * Keys are inserted in primary-key order so two batches that overlap lock in the same order and
   * cannot deadlock. {@code ON CONFLICT} names no columns: while an inbox is upgraded from schema
   * v1, either unique index may be the one a concurrent writer of the previous version holds. The
   * existing rows come from the statement's snapshot: a row committed by a concurrent transaction
   * while this one waited on the index is not in it (the lookup yields NULL), and {@link #FIND}
   * reads it afterwards in a fresh snapshot. Existing rows are looked up one by one through the
   * primary key (LATERAL ... LIMIT 1): a plain join lets the planner hash or scan the whole inbox
   * once per batch while the table is small enough, a cost that grows with every row. Only keys not
   * claimed come back: a batch of new keys reads an empty result instead of a mostly NULL row per
   * key.
   */
  private static final String CLAIM_TEMPLATE =
      """
      WITH offered AS (
          SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::text[],
                               ?::float8[], ?::float8[])
              WITH ORDINALITY AS o(tenant, principal, operation, idempotency_key, key_hash,
                                   request_hash, outcome_ttl_seconds, key_ttl_seconds, position)
      ),
      claimed AS (
          INSERT INTO inbox (key_hash, tenant, principal, operation, idempotency_key, request_hash,
                             status, outcome_kind, completed_at, outcome_expires_at, expires_at)
          SELECT key_hash, tenant, principal, operation, idempotency_key, request_hash, %s,
                 now() + make_interval(secs => outcome_ttl_seconds),
                 now() + make_interval(secs => key_ttl_seconds)
          FROM offered
          ORDER BY key_hash
          ON CONFLICT DO NOTHING
          RETURNING key_hash
      )
      SELECT o.position, false AS claimed,
             e.tenant, e.principal, e.operation, e.idempotency_key,
             e.request_hash, e.status, e.outcome_kind, e.outcome_code, e.outcome_body::text,
             e.created_at, e.expires_at, e.outcome_pruned_at
      FROM offered o
      LEFT JOIN claimed c ON c.key_hash = o.key_hash
      LEFT JOIN LATERAL (
          SELECT * FROM inbox i
          WHERE c.key_hash IS NULL AND i.key_hash = o.key_hash
          LIMIT 1
      ) e ON true
      WHERE c.key_hash IS NULL
      ORDER BY o.position
      """;

  /** Claims a key as PROCESSING, for callers that record its outcome in a later statement. */
  static final String CLAIM = CLAIM_TEMPLATE.formatted("'PROCESSING', NULL, NULL");

  /**
   * Claims a key already holding a bare success ({@link Outcome#success()}), the state {@link
   * #COMPLETE} would give it: for a caller that records every outcome before its transaction
   * commits, a key is one heap tuple and one set of index entries instead of two, and a bare
   * success needs no second statement.
   */
  static final String CLAIM_PRESUMING_SUCCESS =
      CLAIM_TEMPLATE.formatted("'COMPLETED', 'SUCCESS', now()");

  static final String FIND =
      """
      SELECT o.position, false AS claimed,
             e.tenant, e.principal, e.operation, e.idempotency_key,
             e.request_hash, e.status, e.outcome_kind, e.outcome_code, e.outcome_body::text,
             e.created_at, e.expires_at, e.outcome_pruned_at
      FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[])
               WITH ORDINALITY AS o(tenant, principal, operation, idempotency_key, key_hash,
                                    position)
      LEFT JOIN LATERAL (
          SELECT * FROM inbox i WHERE i.key_hash = o.key_hash LIMIT 1
      ) e ON true
      ORDER BY o.position
      """;

  /**
   * Records outcomes on rows this transaction claimed (the condition that tells them is filled in).
   * Each row is found by one primary-key lookup and updated by its row id: joined on the key
   * instead, the planner estimates almost none of the rows to change (they are all uncommitted, so
   * never in the statistics) and scans or hashes the whole inbox once per batch. Such a row belongs
   * to this transaction (no other can see it), so its row id cannot change under the statement.
   */
  private static final String COMPLETE_TEMPLATE =
      """
      UPDATE inbox i
         SET status = c.status, outcome_kind = c.outcome_kind, outcome_code = c.outcome_code,
             outcome_body = c.outcome_body::jsonb, completed_at = now()
        FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::text[], ?::text[],
                    ?::int[], ?::text[])
                 AS c(tenant, principal, operation, idempotency_key, key_hash, status,
                      outcome_kind, outcome_code, outcome_body)
        CROSS JOIN LATERAL (
            SELECT p.ctid FROM inbox p
            WHERE p.key_hash = c.key_hash
              AND %s
            LIMIT 1
        ) held
       WHERE i.ctid = held.ctid
      """;

  /** Records outcomes of rows claimed by {@link #CLAIM}; only rows still PROCESSING change. */
  static final String COMPLETE = COMPLETE_TEMPLATE.formatted("p.status = 'PROCESSING'");

  /**
   * Replaces the presumed bare success of rows claimed by {@link #CLAIM_PRESUMING_SUCCESS} in this
   * transaction. Only such rows change: still a bare success and created at this transaction's
   * start ({@code now()}), so a row committed by another transaction, or corrected already, is left
   * alone. The row belongs to this transaction until it commits (no other can see it).
   */
  static final String CORRECT_PRESUMED_SUCCESS =
      COMPLETE_TEMPLATE.formatted(
          """
          p.status = 'COMPLETED' AND p.outcome_kind = 'SUCCESS' AND p.outcome_code IS NULL
                AND p.outcome_body IS NULL AND p.created_at = now()""");

  /**
   * Whether the inbox is found by its key digest: a valid unique index on {@code key_hash} alone,
   * the primary key of schema v2, or the index {@code iox inbox-upgrade prepare} builds before the
   * primary key moves to it.
   */
  static final String KEY_DIGEST_INDEXED =
      """
      SELECT EXISTS (
          SELECT FROM pg_index x
          JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
          WHERE x.indrelid = to_regclass('inbox') AND x.indisunique AND x.indisvalid
            AND x.indnatts = 1 AND a.attname = 'key_hash')
      """;

  private InboxStatements() {}

  /** A stored row as seen by CLAIM or FIND; {@code entry} is null when no row was visible. */
  record Row(int position, boolean claimed, Inbox.Entry entry) {}

  static List<Row> claim(
      Connection connection,
      List<ClaimRequest> requests,
      List<Retention> retentions,
      boolean presumeSuccess)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(presumeSuccess ? CLAIM_PRESUMING_SUCCESS : CLAIM)) {
      int n = requests.size();
      String[] hashes = new String[n];
      Double[] outcomeTtls = new Double[n];
      Double[] keyTtls = new Double[n];
      for (int i = 0; i < n; i++) {
        hashes[i] = requests.get(i).requestHash();
        outcomeTtls[i] = seconds(retentions.get(i).outcomeTtl());
        keyTtls[i] = seconds(retentions.get(i).keyTtl());
      }
      int index = bindKeys(connection, statement, requests);
      statement.setArray(++index, connection.createArrayOf("text", hashes));
      statement.setArray(++index, connection.createArrayOf("float8", outcomeTtls));
      statement.setArray(++index, connection.createArrayOf("float8", keyTtls));
      List<Row> notClaimed = readRows(statement, requests);
      boolean[] returned = new boolean[n];
      notClaimed.forEach(row -> returned[row.position() - 1] = true);
      List<Row> rows = new ArrayList<>(notClaimed);
      for (int i = 0; i < n; i++) {
        if (!returned[i]) {
          rows.add(new Row(i + 1, true, null));
        }
      }
      return rows;
    }
  }

  static List<Row> find(Connection connection, List<ClaimRequest> requests) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(FIND)) {
      bindKeys(connection, statement, requests);
      return readRows(statement, requests);
    }
  }

  /**
   * Returns how many rows changed to their outcome: from PROCESSING, or with {@code
   * presumedSuccess} from the bare success {@link #CLAIM_PRESUMING_SUCCESS} wrote.
   */
  static int complete(
      Connection connection, List<Inbox.Completion> completions, boolean presumedSuccess)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(presumedSuccess ? CORRECT_PRESUMED_SUCCESS : COMPLETE)) {
      int n = completions.size();
      List<ClaimRequest> requests = new ArrayList<>(n);
      String[] statuses = new String[n];
      String[] kinds = new String[n];
      Integer[] codes = new Integer[n];
      String[] bodies = new String[n];
      for (int i = 0; i < n; i++) {
        Inbox.Completion completion = completions.get(i);
        Outcome outcome = completion.outcome();
        requests.add(completion.claim().request());
        statuses[i] = outcome.kind().status().name();
        kinds[i] = outcome.kind().name();
        codes[i] = outcome.code().isPresent() ? outcome.code().getAsInt() : null;
        bodies[i] = outcome.body().orElse(null);
      }
      int index = bindKeys(connection, statement, requests);
      statement.setArray(++index, connection.createArrayOf("text", statuses));
      statement.setArray(++index, connection.createArrayOf("text", kinds));
      statement.setArray(++index, connection.createArrayOf("int4", codes));
      statement.setArray(++index, connection.createArrayOf("text", bodies));
      return statement.executeUpdate();
    }
  }

  private static int bindKeys(
      Connection connection, PreparedStatement statement, List<ClaimRequest> requests)
      throws SQLException {
    int n = requests.size();
    String[] tenants = new String[n];
    String[] principals = new String[n];
    String[] operations = new String[n];
    String[] keys = new String[n];
    byte[][] digests = new byte[n][];
    for (int i = 0; i < n; i++) {
      ClaimRequest request = requests.get(i);
      tenants[i] = request.scope().tenant();
      principals[i] = request.scope().principal();
      operations[i] = request.scope().operation();
      keys[i] = request.key().value();
      digests[i] = request.keyDigest();
    }
    Array[] arrays = {
      connection.createArrayOf("text", tenants),
      connection.createArrayOf("text", principals),
      connection.createArrayOf("text", operations),
      connection.createArrayOf("text", keys),
      connection.createArrayOf("bytea", digests)
    };
    for (int i = 0; i < arrays.length; i++) {
      statement.setArray(i + 1, arrays[i]);
    }
    return arrays.length;
  }

  private static List<Row> readRows(PreparedStatement statement, List<ClaimRequest> requests)
      throws SQLException {
    List<Row> rows = new ArrayList<>(requests.size());
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        int position = result.getInt("position");
        ClaimRequest request = requests.get(position - 1);
        String storedHash = result.getString("request_hash");
        if (storedHash != null) {
          requireSameKey(request, result);
        }
        Inbox.Entry entry = storedHash == null ? null : entry(request, storedHash, result);
        rows.add(new Row(position, result.getBoolean("claimed"), entry));
      }
    }
    return rows;
  }

  static boolean keyDigestIndexed(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(KEY_DIGEST_INDEXED);
        ResultSet result = statement.executeQuery()) {
      return result.next() && result.getBoolean(1);
    }
  }

  /**
   * Two keys whose digests are equal would share a row: one would be absorbed as the other's
   * repeat. At 16 bytes that takes about 2^64 keys alive at once, but a stored row that names
   * another key is refused rather than trusted.
   */
  private static void requireSameKey(ClaimRequest request, ResultSet result) throws SQLException {
    Scope scope = request.scope();
    if (!scope.tenant().equals(result.getString("tenant"))
        || !scope.principal().equals(result.getString("principal"))
        || !scope.operation().equals(result.getString("operation"))
        || !request.key().value().equals(result.getString("idempotency_key"))) {
      throw new InboxException(
          "the inbox row found for key "
              + request.key()
              + " in "
              + scope
              + " holds another key with the same digest (operation "
              + result.getString("operation")
              + "); nothing was claimed",
          null);
    }
  }

  private static Inbox.Entry entry(ClaimRequest request, String storedHash, ResultSet result)
      throws SQLException {
    Inbox.Status status = Inbox.Status.valueOf(result.getString("status"));
    String kind = result.getString("outcome_kind");
    int code = result.getInt("outcome_code");
    OptionalInt outcomeCode = result.wasNull() ? OptionalInt.empty() : OptionalInt.of(code);
    Optional<Instant> prunedAt = Optional.ofNullable(instant(result, "outcome_pruned_at"));
    Optional<Outcome> outcome =
        kind == null || prunedAt.isPresent()
            ? Optional.empty()
            : Optional.of(
                new Outcome(
                    Outcome.Kind.valueOf(kind),
                    outcomeCode,
                    Optional.ofNullable(result.getString("outcome_body"))));
    return new Inbox.Entry(
        request.scope(),
        request.key(),
        storedHash,
        status,
        outcome,
        instant(result, "created_at"),
        instant(result, "expires_at"),
        prunedAt);
  }

  private static Instant instant(ResultSet result, String column) throws SQLException {
    OffsetDateTime value = result.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  private static double seconds(java.time.Duration duration) {
    return duration.toMillis() / 1000.0;
  }
}
