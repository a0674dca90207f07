package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.inbox.Inbox.Entry;
import dev.inboxoutbox.inbox.Inbox.Retention;
import dev.inboxoutbox.inbox.Inbox.Status;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InboxIT {

  private static Database database;
  private final Inbox inbox = Inbox.builder().build();
  private final Scope orders = Scope.of("order-consumer");

  @BeforeAll
  static void createDatabase() throws SQLException {
    database = MigratedDatabase.create();
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TABLE effects (id bigserial PRIMARY KEY, idempotency_key text NOT NULL)");
    }
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void sameKeyTwiceIsADuplicateThatCarriesTheFirstOutcome() throws SQLException {
    ClaimRequest request = request(orders, "{\"sku\":\"A\",\"qty\":1}");

    ClaimResult first =
        inTransaction(c -> applyOnce(c, request, Outcome.success("{\"orderId\":1}")));
    ClaimResult second =
        inTransaction(c -> applyOnce(c, request, Outcome.success("{\"orderId\":2}")));

    assertThat(first).isInstanceOf(ClaimResult.New.class);
    assertThat(second).isInstanceOf(ClaimResult.Duplicate.class);
    Entry original = ((ClaimResult.Duplicate) second).original();
    assertThat(original.status()).isEqualTo(Status.COMPLETED);
    assertThat(original.outcome()).contains(Outcome.success("{\"orderId\": 1}"));
    assertThat(effectsFor(request.key())).isEqualTo(1);
  }

  @Test
  void aDuplicateWithReorderedFieldsIsStillADuplicate() throws SQLException {
    IdempotencyKey key = newKey();
    inTransaction(
        c ->
            applyOnce(c, ClaimRequest.ofJson(orders, key, "{\"a\":1,\"b\":2}"), Outcome.success()));

    ClaimResult again =
        inTransaction(
            c -> inbox.claim(c, ClaimRequest.ofJson(orders, key, "{ \"b\": 2, \"a\": 1 }")));

    assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
  }

  @Test
  void sameKeyWithAnotherPayloadIsAConflictAndLeavesTheOriginalUntouched() throws SQLException {
    ClaimRequest original = request(orders, "{\"sku\":\"A\",\"qty\":1}");
    inTransaction(c -> applyOnce(c, original, Outcome.success("{\"orderId\":7}")));
    ClaimRequest changed = ClaimRequest.ofJson(orders, original.key(), "{\"sku\":\"A\",\"qty\":5}");

    ClaimResult result =
        inTransaction(c -> applyOnce(c, changed, Outcome.success("{\"orderId\":8}")));

    assertThat(result).isInstanceOf(ClaimResult.Conflict.class);
    Entry stored = ((ClaimResult.Conflict) result).original();
    assertThat(stored.requestHash()).isEqualTo(original.requestHash());
    assertThat(inTransaction(c -> inbox.find(c, orders, original.key())).orElseThrow().outcome())
        .contains(Outcome.success("{\"orderId\":7}"));
    assertThat(effectsFor(original.key())).isEqualTo(1);
  }

  @Test
  void aBusinessRejectionIsStoredAndReplayedAsARejection() throws SQLException {
    ClaimRequest pay = request(Scope.of("pay"), "{\"orderId\":9}");
    Outcome rejection = Outcome.rejected(409, "{\"reason\":\"order cancelled\"}");
    inTransaction(
        c -> {
          inbox.complete(c, (ClaimResult.New) inbox.claim(c, pay), rejection);
          return null;
        });

    ClaimResult retry = inTransaction(c -> inbox.claim(c, pay));

    Entry original = ((ClaimResult.Duplicate) retry).original();
    assertThat(original.status()).isEqualTo(Status.FAILED);
    assertThat(original.outcome()).contains(rejection);
  }

  @Test
  void sixteenThreadsRacingOneKeyGetExactlyOneNewAndCauseOneEffect() throws Exception {
    ClaimRequest request = request(orders, "{\"sku\":\"race\"}");
    int threads = 16;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<ClaimResult>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(
          pool.submit(
              () -> {
                try (Connection connection = database.connect()) {
                  connection.setAutoCommit(false);
                  start.await();
                  ClaimResult result = inbox.claim(connection, request);
                  if (result instanceof ClaimResult.New claim) {
                    // Hold the claim so the others are certainly waiting on the index entry.
                    Thread.sleep(300);
                    insertEffect(connection, request.key());
                    inbox.complete(connection, claim, Outcome.success("{\"winner\":true}"));
                  }
                  connection.commit();
                  return result;
                }
              }));
    }
    List<ClaimResult> results = new ArrayList<>();
    for (Future<ClaimResult> future : futures) {
      results.add(future.get(30, TimeUnit.SECONDS));
    }
    pool.shutdown();

    assertThat(results).filteredOn(r -> r instanceof ClaimResult.New).hasSize(1);
    assertThat(results)
        .filteredOn(r -> r instanceof ClaimResult.Duplicate)
        .hasSize(threads - 1)
        .allSatisfy(
            r ->
                assertThat(((ClaimResult.Duplicate) r).original().outcome())
                    .contains(Outcome.success("{\"winner\":true}")));
    assertThat(effectsFor(request.key())).isEqualTo(1);
  }

  @Test
  void theSameKeyInAnotherTenantOrConsumerIsNewInEach() throws SQLException {
    IdempotencyKey key = newKey();
    String json = "{}";
    List<Scope> scopes =
        List.of(
            Scope.of("order-consumer"),
            Scope.of("acme", "", "order-consumer"),
            Scope.of("globex", "", "order-consumer"),
            Scope.of("payment-consumer"),
            Scope.of("", "user-1", "order-consumer"));

    List<ClaimResult> results =
        inTransaction(
            c -> {
              List<ClaimResult> claimed = new ArrayList<>();
              for (Scope scope : scopes) {
                claimed.add(inbox.claim(c, ClaimRequest.ofJson(scope, key, json)));
              }
              return claimed;
            });

    assertThat(results).allMatch(r -> r instanceof ClaimResult.New);
  }

  @Test
  void aRolledBackTransactionLeavesNoClaimBehind() throws SQLException {
    ClaimRequest request = request(orders, "{\"sku\":\"B\"}");
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      ClaimResult result = inbox.claim(connection, request);
      insertEffect(connection, request.key());
      inbox.complete(connection, (ClaimResult.New) result, Outcome.success());
      connection.rollback();
    }

    Optional<Entry> stored = inTransaction(c -> inbox.find(c, orders, request.key()));
    assertThat(stored).isEmpty();
    assertThat(effectsFor(request.key())).isZero();
    ClaimResult retried = inTransaction(c -> inbox.claim(c, request));
    assertThat(retried).isInstanceOf(ClaimResult.New.class);
  }

  @Test
  void theBatchFormAnswersExactlyAsSingleClaimsDo() throws SQLException {
    Scope batchScope = Scope.of("batch-" + UUID.randomUUID());
    Scope singleScope = Scope.of("single-" + UUID.randomUUID());
    IdempotencyKey completed = newKey();
    IdempotencyKey rejected = newKey();
    IdempotencyKey fresh = newKey();
    String a = "{\"v\":\"a\"}";
    String b = "{\"v\":\"b\"}";
    for (Scope scope : List.of(batchScope, singleScope)) {
      inTransaction(
          c -> {
            inbox.complete(
                c,
                (ClaimResult.New) inbox.claim(c, ClaimRequest.ofJson(scope, completed, a)),
                Outcome.success("{\"n\":1}"));
            inbox.complete(
                c,
                (ClaimResult.New) inbox.claim(c, ClaimRequest.ofJson(scope, rejected, a)),
                Outcome.rejected("{\"n\":2}"));
            return null;
          });
    }
    List<ClaimRequest> batch = new ArrayList<>();
    List<ClaimRequest> singles = new ArrayList<>();
    for (Object[] item :
        new Object[][] {
          {completed, a}, {completed, b}, {rejected, a}, {fresh, a}, {fresh, a}, {fresh, b}
        }) {
      batch.add(ClaimRequest.ofJson(batchScope, (IdempotencyKey) item[0], (String) item[1]));
      singles.add(ClaimRequest.ofJson(singleScope, (IdempotencyKey) item[0], (String) item[1]));
    }

    List<ClaimResult> batchResults = inTransaction(c -> inbox.claimAll(c, batch));
    List<ClaimResult> singleResults =
        inTransaction(
            c -> {
              List<ClaimResult> results = new ArrayList<>();
              for (ClaimRequest single : singles) {
                results.add(inbox.claim(c, single));
              }
              return results;
            });

    assertThat(batchResults.stream().map(r -> r.getClass().getSimpleName()).toList())
        .containsExactly("Duplicate", "Conflict", "Duplicate", "New", "Duplicate", "Conflict")
        .isEqualTo(singleResults.stream().map(r -> r.getClass().getSimpleName()).toList());
    for (int i = 0; i < batchResults.size(); i++) {
      assertThat(originalOutcome(batchResults.get(i)))
          .isEqualTo(originalOutcome(singleResults.get(i)));
    }
  }

  @Test
  void overlappingBatchesInOppositeOrderDoNotDeadlock() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    for (int round = 0; round < 20; round++) {
      List<ClaimRequest> forward = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        forward.add(request(orders, "{\"i\":" + i + "}"));
      }
      List<ClaimRequest> backward = new ArrayList<>(forward);
      java.util.Collections.reverse(backward);
      CyclicBarrier start = new CyclicBarrier(2);
      Future<List<ClaimResult>> one = pool.submit(() -> claimAfter(start, forward));
      Future<List<ClaimResult>> two = pool.submit(() -> claimAfter(start, backward));

      long news =
          java.util.stream.Stream.concat(
                  one.get(30, TimeUnit.SECONDS).stream(), two.get(30, TimeUnit.SECONDS).stream())
              .filter(r -> r instanceof ClaimResult.New)
              .count();
      assertThat(news).isEqualTo(10);
    }
    pool.shutdown();
  }

  @Test
  void claimingOutsideATransactionIsRefusedAndWritesNothing() throws SQLException {
    ClaimRequest request = request(orders, "{}");
    try (Connection connection = database.connect()) {
      assertThatThrownBy(() -> inbox.claim(connection, request))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("inside the caller's transaction");
    }
    Optional<Entry> stored = inTransaction(c -> inbox.find(c, orders, request.key()));
    assertThat(stored).isEmpty();
  }

  @Test
  void anOutcomeCanBeRecordedOnlyOnceAndOnlyForAClaimHeld() throws SQLException {
    ClaimRequest request = request(orders, "{}");
    inTransaction(c -> applyOnce(c, request, Outcome.success()));

    assertThatThrownBy(
            () ->
                inTransaction(
                    c -> {
                      inbox.complete(c, new ClaimResult.New(request), Outcome.success());
                      return null;
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("completed already");
  }

  @Test
  void claimsExpireAfterTheConfiguredRetentionPerOperation() throws SQLException {
    Inbox shortLived =
        Inbox.builder()
            .retention(
                "webhooks",
                Retention.of(java.time.Duration.ofMinutes(5), java.time.Duration.ofHours(1)))
            .build();
    ClaimRequest webhook = request(Scope.of("webhooks"), "{}");
    ClaimRequest order = request(orders, "{}");

    inTransaction(c -> shortLived.claimAll(c, List.of(webhook, order)));

    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT extract(epoch FROM outcome_expires_at - created_at),"
                    + " extract(epoch FROM expires_at - created_at) FROM inbox WHERE idempotency_key = ?")) {
      query.setString(1, webhook.key().value());
      assertThat(readPair(query)).containsExactly(300.0, 3600.0);
      query.setString(1, order.key().value());
      assertThat(readPair(query)).containsExactly(86400.0, 604800.0);
    }
  }

  @Test
  void migratingAgainIsANoOp() {
    assertThat(InboxOutboxSchema.migrate(database.dataSource())).isZero();
  }

  private List<ClaimResult> claimAfter(CyclicBarrier start, List<ClaimRequest> requests)
      throws Exception {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      start.await();
      List<ClaimResult> results = inbox.claimAll(connection, requests);
      // Not a wait: the claimed rows stay locked a moment so the other batch's transaction
      // overlaps this one, as it must for a deadlock to be possible.
      Thread.sleep(20);
      connection.commit();
      return results;
    }
  }

  private ClaimResult applyOnce(Connection connection, ClaimRequest request, Outcome outcome)
      throws SQLException {
    ClaimResult result = inbox.claim(connection, request);
    if (result instanceof ClaimResult.New claim) {
      insertEffect(connection, request.key());
      inbox.complete(connection, claim, outcome);
    }
    return result;
  }

  private static Object originalOutcome(ClaimResult result) {
    if (result instanceof ClaimResult.Duplicate duplicate) {
      return duplicate.original().outcome();
    }
    if (result instanceof ClaimResult.Conflict conflict) {
      return conflict.original().outcome();
    }
    return null;
  }

  private static List<Double> readPair(PreparedStatement query) throws SQLException {
    try (ResultSet rows = query.executeQuery()) {
      rows.next();
      return List.of(rows.getDouble(1), rows.getDouble(2));
    }
  }

  /**
   * Two keys with one digest cannot be made on purpose, but a row can be stored under another key's
   * digest: the claim must then refuse, not take it for that key's repeat.
   */
  @Test
  void aRowStoredUnderTheDigestOfAnotherKeyIsRefusedNotTakenForARepeat() throws SQLException {
    ClaimRequest request = request(orders, "{\"sku\":\"A\"}");
    try (Connection connection = database.connect();
        PreparedStatement insert =
            connection.prepareStatement(
                """
                INSERT INTO inbox (key_hash, operation, idempotency_key, request_hash, status,
                                   outcome_kind, completed_at, outcome_expires_at, expires_at)
                VALUES (inbox_key_hash('', '', ?, ?), ?, 'another-key', ?, 'COMPLETED', 'SUCCESS',
                        now(), now() + interval '1 day', now() + interval '7 days')
                """)) {
      insert.setString(1, orders.operation());
      insert.setString(2, request.key().value());
      insert.setString(3, orders.operation());
      insert.setString(4, request.requestHash());
      insert.executeUpdate();
    }

    assertThatThrownBy(() -> inTransaction(c -> applyOnce(c, request, Outcome.success())))
        .hasMessageContaining("holds another key with the same digest");
    assertThat(effectsFor(request.key())).isZero();
  }

  @Test
  void anInboxThatIsOffClaimsNothingSoARepeatAppliesAgain() throws SQLException {
    Inbox off = Inbox.off();
    ClaimRequest request = request(orders, "{\"sku\":\"A\"}");

    for (int delivery = 0; delivery < 2; delivery++) {
      inTransaction(
          c -> {
            List<ClaimResult> claims = off.claimAllPresumingSuccess(c, List.of(request, request));
            assertThat(claims).allMatch(ClaimResult.New.class::isInstance);
            insertEffect(c, request.key());
            off.correctPresumedSuccesses(
                c,
                List.of(
                    Inbox.Completion.of(
                        (ClaimResult.New) claims.get(0), Outcome.rejected(409, "{}"))));
            return null;
          });
    }

    assertThat(off.deduplicates()).isFalse();
    assertThat(inbox.deduplicates()).isTrue();
    assertThat(effectsFor(request.key())).isEqualTo(2);
    Optional<Entry> seenOff = inTransaction(c -> off.find(c, orders, request.key()));
    Optional<Entry> stored = inTransaction(c -> inbox.find(c, orders, request.key()));
    assertThat(seenOff).isEmpty();
    assertThat(stored).isEmpty();
  }

  private static ClaimRequest request(Scope scope, String json) {
    return ClaimRequest.ofJson(scope, newKey(), json);
  }

  private static IdempotencyKey newKey() {
    return IdempotencyKey.of(UUID.randomUUID().toString());
  }

  private static void insertEffect(Connection connection, IdempotencyKey key) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement("INSERT INTO effects (idempotency_key) VALUES (?)")) {
      insert.setString(1, key.value());
      insert.executeUpdate();
    }
  }

  private static long effectsFor(IdempotencyKey key) throws SQLException {
    try (Connection connection = database.connect();
        PreparedStatement query =
            connection.prepareStatement("SELECT count(*) FROM effects WHERE idempotency_key = ?")) {
      query.setString(1, key.value());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private interface Work<T> {
    T apply(Connection connection) throws Exception;
  }

  private static <T> T inTransaction(Work<T> work) throws SQLException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      try {
        T result = work.apply(connection);
        connection.commit();
        return result;
      } catch (RuntimeException e) {
        connection.rollback();
        throw e;
      } catch (Exception e) {
        connection.rollback();
        throw new IllegalStateException(e);
      }
    }
  }
}
