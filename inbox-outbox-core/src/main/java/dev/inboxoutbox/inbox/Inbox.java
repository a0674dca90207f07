package dev.inboxoutbox.inbox;

import dev.inboxoutbox.inbox.InboxStatements.Row;
import dev.inboxoutbox.jdbc.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
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
 * ClaimResult result = inbox.claim(connection, new ClaimRequest(scope, key, RequestHash.ofJson(body)));
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

  private Inbox(Builder builder) {
    this.defaultRetention = builder.defaultRetention;
    this.retentionByOperation = Map.copyOf(builder.retentionByOperation);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The retention applied to claims in {@code operation}. */
  public Retention retentionFor(String operation) {
    return retentionByOperation.getOrDefault(operation, defaultRetention);
  }

  /** Claims one key; see {@link #claimAll}. */
  public ClaimResult claim(Connection connection, ClaimRequest request) {
    return claimAll(connection, List.of(request)).get(0);
  }

  public ClaimResult claim(
      Connection connection, Scope scope, IdempotencyKey key, RequestHash requestHash) {
    return claim(connection, new ClaimRequest(scope, key, requestHash));
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
    requireTransaction(connection);
    Objects.requireNonNull(requests, "requests");
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
      resolve(connection, requests, distinct, results);
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
      ClaimResult[] results)
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
              batch.stream().map(r -> retentionFor(r.scope().operation())).toList());
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
   * Records the outcome of a claim this transaction won: {@link InboxStatus#COMPLETED} for a
   * success, {@link InboxStatus#FAILED} for a business rejection. Both are replayed to duplicates.
   */
  public void complete(Connection connection, ClaimResult.New claim, Outcome outcome) {
    completeAll(connection, List.of(new Completion(claim, outcome)));
  }

  /** Records many outcomes in one round trip. */
  public void completeAll(Connection connection, List<Completion> completions) {
    requireTransaction(connection);
    if (completions.isEmpty()) {
      return;
    }
    int updated;
    try {
      updated = InboxStatements.complete(connection, completions);
    } catch (SQLException e) {
      throw new InboxException("recording " + completions.size() + " outcome(s) failed", e);
    }
    if (updated != completions.size()) {
      throw new IllegalStateException(
          "recorded "
              + updated
              + " of "
              + completions.size()
              + " outcomes: a claim was not made in this transaction, or was completed already");
    }
  }

  /**
   * Reads the entry for a key, for inspection and HTTP replays. Never use it to decide whether to
   * run an effect: only a claim can decide that atomically.
   */
  public Optional<InboxEntry> find(Connection connection, Scope scope, IdempotencyKey key) {
    ClaimRequest lookup = new ClaimRequest(scope, key, RequestHash.ofBytes(new byte[0]));
    try {
      return Optional.ofNullable(InboxStatements.find(connection, List.of(lookup)).get(0).entry());
    } catch (SQLException e) {
      throw new InboxException("reading idempotency key " + key + " failed", e);
    }
  }

  private static ClaimResult compare(ClaimRequest request, InboxEntry stored) {
    return stored.requestHash().equals(request.requestHash())
        ? new ClaimResult.Duplicate(request, stored)
        : new ClaimResult.Conflict(request, stored);
  }

  private InboxEntry entryHolding(ClaimResult first) {
    if (first instanceof ClaimResult.Duplicate duplicate) {
      return duplicate.original();
    }
    if (first instanceof ClaimResult.Conflict conflict) {
      return conflict.original();
    }
    Instant now = Instant.now();
    ClaimRequest request = first.request();
    return new InboxEntry(
        request.scope(),
        request.key(),
        request.requestHash(),
        InboxStatus.PROCESSING,
        Optional.empty(),
        now,
        now.plus(retentionFor(request.scope().operation()).keyTtl()),
        Optional.empty());
  }

  private static void requireTransaction(Connection connection) {
    try {
      Transactions.requireOpen(connection, "inbox");
    } catch (SQLException e) {
      throw new InboxException("cannot read the connection's auto-commit mode", e);
    }
  }

  /** An outcome to record for a claim this transaction won. */
  public record Completion(ClaimResult.New claim, Outcome outcome) {
    public Completion {
      Objects.requireNonNull(claim, "claim");
      Objects.requireNonNull(outcome, "outcome");
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
      return new Inbox(this);
    }
  }
}
