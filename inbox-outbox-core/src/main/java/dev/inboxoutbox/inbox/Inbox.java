package dev.inboxoutbox.inbox;

import dev.inboxoutbox.inbox.InboxStatements.Row;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The inbox: claims idempotency keys inside the caller's JDBC transaction.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder().build();
 * connection.setAutoCommit(false);
 * ClaimResult result = inbox.claim(connection, ClaimRequest.ofJson(scope, key, body));
 * if (result instanceof ClaimResult.New claim) {
 *   Outcome outcome = placeOrder(connection, body);         // same transaction
 *   inbox.complete(connection, claim, outcome);
 * } else if (result instanceof ClaimResult.Duplicate duplicate) {
 *   replay(duplicate.original().outcome());
 * } else {
 *   reject("key reused for another request");              // ClaimResult.Conflict
 * }
 * connection.commit();
 * }</pre>
 *
 * <p>Every method requires an open transaction ({@code autoCommit=false}) and runs at the
 * connection's isolation level; READ COMMITTED (PostgreSQL's default) is the one the concurrency
 * guarantees are written for. A claim is a single {@code INSERT ... ON CONFLICT DO NOTHING} on the
 * unique (tenant, principal, operation, key) index: a concurrent duplicate blocks on the index
 * until the first transaction ends, then sees its row, so two transactions can never both get
 * {@link ClaimResult.New} for one key. Instances are immutable and thread-safe.
 */
public final class Inbox {

  /** Bounded: a key can only vanish between attempts if retention deletes it at that instant. */
  private static final int MAX_RESOLVE_ATTEMPTS = 3;

  private final Retention defaultRetention;
  private final Map<String, Retention> retentionByOperation;
  private final boolean deduplicates;

  /**
   * Once seen, the key digest's index stays: an upgrade never goes back. Until then every use
   * checks, so an instance started before {@code iox inbox-upgrade prepare} finished picks it up.
   */
  private volatile boolean keyDigestIndexed;

  private Inbox(Builder builder, boolean deduplicates) {
    this.defaultRetention = builder.defaultRetention;
    this.retentionByOperation = Map.copyOf(builder.retentionByOperation);
    this.deduplicates = deduplicates;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * An inbox that is off: every claim is {@link ClaimResult.New}, nothing is written or read, so a
   * repeat applies again and no outcome is stored. It exists to measure what the inbox costs end to
   * end against the same code without it ({@code iox chaos --inbox-price}); never use it where
   * effects must happen once. No property selects it: only code that passes it to a consumer or
   * registers it as the {@code Inbox} bean, and each consumer built with it logs a warning.
   */
  public static Inbox off() {
    return new Inbox(new Builder(), false);
  }

  /** False only for {@link #off()}. */
  public boolean deduplicates() {
    return deduplicates;
  }

  /** The retention applied to claims in {@code operation}. */
  public Retention retentionFor(String operation) {
    return retentionByOperation.getOrDefault(operation, defaultRetention);
  }

  /** Claims one key; see {@link #claimAll}. */
  public ClaimResult claim(Connection connection, ClaimRequest request) {
    return claimAll(connection, List.of(request)).get(0);
  }

  /**
   * Claims many keys in one round trip, answering in the order given. A key repeated within the
   * batch is answered for its first occurrence; later ones are {@link ClaimResult.Duplicate} of
   * that (in-flight) claim, or {@link ClaimResult.Conflict} if their hash differs.
   *
   * @throws InboxException if the database fails; the caller's transaction is then unusable and
   *     must be rolled back (nothing was claimed)
   */
  public List<ClaimResult> claimAll(Connection connection, List<ClaimRequest> requests) {
    return claimAll(connection, requests, false);
  }

  /**
   * Claims like {@link #claimAll}, for a caller that records the outcome of every new claim before
   * this transaction commits, as a consumer's batch does: each new key is written once, already
   * {@link Status#COMPLETED} with {@link Outcome#success()}, instead of PROCESSING and then its
   * outcome. Then pass every outcome that is not a bare success to {@link
   * #correctPresumedSuccesses}; a bare success needs no further statement.
   *
   * <p>The guarantees of {@link #claimAll} hold: no other transaction sees the row before this one
   * commits (a concurrent duplicate waits on the index, then reads the final outcome), and a
   * rollback leaves nothing. Only this transaction itself reads the presumed success until it is
   * corrected, should it look the key up again.
   */
  public List<ClaimResult> claimAllPresumingSuccess(
      Connection connection, List<ClaimRequest> requests) {
    return claimAll(connection, requests, true);
  }

  private List<ClaimResult> claimAll(
      Connection connection, List<ClaimRequest> requests, boolean presumeSuccess) {
    requireTransaction(connection);
    Objects.requireNonNull(requests, "requests");
    if (!deduplicates) {
      return requests.stream().<ClaimResult>map(ClaimResult.New::new).toList();
    }
    requireKeyDigestIndexed(connection);
    int n = requests.size();
    ClaimResult[] results = new ClaimResult[n];
    Map<ScopedKey, Integer> firstOccurrence = new HashMap<>();
    List<Integer> distinct = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (firstOccurrence.putIfAbsent(ScopedKey.of(requests.get(i)), i) == null) {
        distinct.add(i);
      }
    }
    try {
      resolve(connection, requests, distinct, results, presumeSuccess);
    } catch (SQLException e) {
      throw new InboxException("claiming " + n + " idempotency key(s) failed", e);
    }
    for (int i = 0; i < n; i++) {
      if (results[i] == null) {
        ClaimResult first = results[firstOccurrence.get(ScopedKey.of(requests.get(i)))];
        results[i] = compare(requests.get(i), entryHolding(first));
      }
    }
    return List.of(results);
  }

  private void resolve(
      Connection connection,
      List<ClaimRequest> requests,
      List<Integer> pending,
      ClaimResult[] results,
      boolean presumeSuccess)
      throws SQLException {
    for (int attempt = 1; !pending.isEmpty(); attempt++) {
      if (attempt > MAX_RESOLVE_ATTEMPTS) {
        throw new InboxException(
            pending.size()
                + " key(s) neither claimable nor found after "
                + MAX_RESOLVE_ATTEMPTS
                + " attempts",
            null);
      }
      List<ClaimRequest> batch = pending.stream().map(requests::get).toList();
      List<Row> claimed =
          InboxStatements.claim(
              connection,
              batch,
              batch.stream().map(r -> retentionFor(r.scope().operation())).toList(),
              presumeSuccess);
      List<Integer> invisible = new ArrayList<>();
      for (Row row : claimed) {
        int index = pending.get(row.position() - 1);
        if (row.claimed()) {
          results[index] = new ClaimResult.New(requests.get(index));
        } else if (row.entry() != null) {
          results[index] = compare(requests.get(index), row.entry());
        } else {
          invisible.add(index);
        }
      }
      // Rows committed by a concurrent transaction while the insert waited on them are outside
      // the insert's snapshot; a new statement sees them.
      pending = new ArrayList<>();
      if (!invisible.isEmpty()) {
        List<ClaimRequest> lookups = invisible.stream().map(requests::get).toList();
        for (Row row : InboxStatements.find(connection, lookups)) {
          int index = invisible.get(row.position() - 1);
          if (row.entry() != null) {
            results[index] = compare(requests.get(index), row.entry());
          } else {
            pending.add(index);
          }
        }
      }
    }
  }

  /**
   * Records the outcome of a claim this transaction won: {@link Status#COMPLETED} for a success,
   * {@link Status#FAILED} for a business rejection. Both are replayed to duplicates.
   */
  public void complete(Connection connection, ClaimResult.New claim, Outcome outcome) {
    completeAll(connection, List.of(Completion.of(claim, outcome)));
  }

  /** Records many outcomes in one round trip. */
  public void completeAll(Connection connection, List<Completion> completions) {
    recordOutcomes(connection, completions, false);
  }

  /**
   * Records the outcomes of claims made by {@link #claimAllPresumingSuccess} in this transaction. A
   * bare {@link Outcome#success()} is stored already and costs nothing; any other outcome replaces
   * it, once.
   *
   * @throws IllegalStateException if a claim was not made that way in this transaction, or was
   *     corrected already
   */
  public void correctPresumedSuccesses(Connection connection, List<Completion> completions) {
    List<Completion> differing = new ArrayList<>(completions.size());
    for (Completion completion : completions) {
      if (!completion.outcome().equals(Outcome.success())) {
        differing.add(completion);
      }
    }
    recordOutcomes(connection, differing, true);
  }

  private void recordOutcomes(
      Connection connection, List<Completion> completions, boolean presumedSuccess) {
    requireTransaction(connection);
    if (!deduplicates) {
      return;
    }
    requireKeyDigestIndexed(connection);
    if (completions.isEmpty()) {
      return;
    }
    int updated;
    try {
      updated = InboxStatements.complete(connection, completions, presumedSuccess);
    } catch (SQLException e) {
      throw new InboxException("recording " + completions.size() + " outcome(s) failed", e);
    }
    if (updated != completions.size()) {
      throw new IllegalStateException(
          "recorded "
              + updated
              + " of "
              + completions.size()
              + " outcomes: a claim was not made in this transaction"
              + (presumedSuccess ? " presuming success" : "")
              + ", or was completed already");
    }
  }

  /**
   * Reads the entry for a key, for inspection and HTTP replays. Never use it to decide whether to
   * run an effect: only a claim can decide that atomically.
   */
  public Optional<Entry> find(Connection connection, Scope scope, IdempotencyKey key) {
    if (!deduplicates) {
      return Optional.empty();
    }
    ClaimRequest lookup = ClaimRequest.ofBytes(scope, key, new byte[0]);
    requireKeyDigestIndexed(connection);
    try {
      return Optional.ofNullable(InboxStatements.find(connection, List.of(lookup)).get(0).entry());
    } catch (SQLException e) {
      throw new InboxException("reading idempotency key " + key + " failed", e);
    }
  }

  private static ClaimResult compare(ClaimRequest request, Entry stored) {
    return stored.requestHash().equals(request.requestHash())
        ? new ClaimResult.Duplicate(request, stored)
        : new ClaimResult.Conflict(request, stored);
  }

  private Entry entryHolding(ClaimResult first) {
    if (first instanceof ClaimResult.Duplicate duplicate) {
      return duplicate.original();
    }
    if (first instanceof ClaimResult.Conflict conflict) {
      return conflict.original();
    }
    Instant now = Instant.now();
    ClaimRequest request = first.request();
    return new Entry(
        request.scope(),
        request.key(),
        request.requestHash(),
        Status.PROCESSING,
        Optional.empty(),
        now,
        now.plus(retentionFor(request.scope().operation()).keyTtl()),
        Optional.empty());
  }

  /**
   * Claims find keys by their digest (schema v2). An inbox of schema v1 gets the digest column from
   * the migration, but its rows are filled and indexed online by {@code iox inbox-upgrade prepare};
   * until then this instance claims nothing rather than miss a stored key.
   */
  private void requireKeyDigestIndexed(Connection connection) {
    if (keyDigestIndexed) {
      return;
    }
    try {
      keyDigestIndexed = InboxStatements.keyDigestIndexed(connection);
    } catch (SQLException e) {
      throw new InboxException("cannot read the inbox's indexes", e);
    }
    if (!keyDigestIndexed) {
      throw new InboxException(
          "the inbox's key digest is not indexed yet (schema v1 being upgraded): run `iox"
              + " inbox-upgrade prepare` against this database, then instances of this version"
              + " claim again (docs/operations.md#upgrading-the-inbox-to-schema-v2)",
          null);
    }
  }

  private static void requireTransaction(Connection connection) {
    try {
      if (Objects.requireNonNull(connection, "connection").getAutoCommit()) {
        // A claim committed on its own would outlive a rolled-back effect: the effect is lost.
        throw new IllegalStateException(
            "the inbox must run inside the caller's transaction: call setAutoCommit(false) first,"
                + " so it commits or rolls back with the state change it belongs to");
      }
    } catch (SQLException e) {
      throw new InboxException("cannot read the connection's auto-commit mode", e);
    }
  }

  /** An outcome to record for a claim this transaction won; see {@link #completeAll}. */
  public record Completion(ClaimResult.New claim, Outcome outcome) {
    public Completion {
      Objects.requireNonNull(claim, "claim");
      Objects.requireNonNull(outcome, "outcome");
    }

    public static Completion of(ClaimResult.New claim, Outcome outcome) {
      return new Completion(claim, outcome);
    }
  }

  /**
   * A stored claim as a duplicate or conflicting request sees it.
   *
   * @param requestHash the stored request's SHA-256, 64 lower-case hex digits
   * @param outcome empty while {@link Status#PROCESSING}, and after retention pruned the body (then
   *     {@link #outcomePrunedAt()} says when)
   */
  public record Entry(
      Scope scope,
      IdempotencyKey key,
      String requestHash,
      Status status,
      Optional<Outcome> outcome,
      Instant createdAt,
      Instant expiresAt,
      Optional<Instant> outcomePrunedAt) {}

  /** Where a claimed key stands. */
  public enum Status {
    /**
     * Claimed; the outcome is not recorded yet (only ever visible inside the claiming transaction).
     */
    PROCESSING,
    /** The effect was applied; the stored outcome is a success. */
    COMPLETED,
    /** The request was rejected for a business reason; the stored rejection is replayed. */
    FAILED
  }

  /**
   * How long a claim is kept, in two phases: the outcome body is dropped after {@code outcomeTtl}
   * (less storage, less personal data), the key row itself after {@code keyTtl}. Until the key row
   * is gone, a repeat is still recognised as a duplicate; after it, see the consumer's too-old
   * guard.
   *
   * <p>Choose {@code keyTtl} from how late retries can really arrive (taps: seconds, flaky
   * networks: minutes, mobile reconnects and client retries: hours) and the cost of a late
   * duplicate. Stripe keeps keys for at least 24 hours, Adyen for at least 31 days.
   */
  public record Retention(Duration outcomeTtl, Duration keyTtl) {

    public static final Duration DEFAULT_OUTCOME_TTL = Duration.ofHours(24);
    public static final Duration DEFAULT_KEY_TTL = Duration.ofDays(7);

    public Retention {
      Objects.requireNonNull(outcomeTtl, "outcomeTtl");
      Objects.requireNonNull(keyTtl, "keyTtl");
      if (outcomeTtl.isNegative() || outcomeTtl.isZero()) {
        throw new IllegalArgumentException("outcome TTL must be positive; was " + outcomeTtl);
      }
      if (keyTtl.compareTo(outcomeTtl) < 0) {
        throw new IllegalArgumentException(
            "key TTL (" + keyTtl + ") must be at least the outcome TTL (" + outcomeTtl + ")");
      }
    }

    public static Retention of(Duration outcomeTtl, Duration keyTtl) {
      return new Retention(outcomeTtl, keyTtl);
    }

    /** Outcome bodies 24 hours, keys 7 days. */
    public static Retention defaults() {
      return of(DEFAULT_OUTCOME_TTL, DEFAULT_KEY_TTL);
    }
  }

  /** A payload could not be read as JSON, so it has no canonical form to hash. */
  public static final class InvalidPayloadException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    InvalidPayloadException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private record ScopedKey(Scope scope, IdempotencyKey key) {
    static ScopedKey of(ClaimRequest request) {
      return new ScopedKey(request.scope(), request.key());
    }
  }

  /** Builds an {@link Inbox}. */
  public static final class Builder {
    private Retention defaultRetention = Retention.defaults();
    private final Map<String, Retention> retentionByOperation = new HashMap<>();

    private Builder() {}

    /** Retention for every operation without its own; default {@link Retention#defaults()}. */
    public Builder retention(Retention retention) {
      this.defaultRetention = Objects.requireNonNull(retention, "retention");
      return this;
    }

    /** Retention for one operation (consumer group or HTTP operation). */
    public Builder retention(String operation, Retention retention) {
      retentionByOperation.put(
          Objects.requireNonNull(operation, "operation"),
          Objects.requireNonNull(retention, "retention"));
      return this;
    }

    public Inbox build() {
      return new Inbox(this, true);
    }
  }
}
