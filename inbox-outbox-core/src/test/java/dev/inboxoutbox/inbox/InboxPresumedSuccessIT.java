package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.consumer.TransactionRunner;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.inbox.Inbox.Completion;
import dev.inboxoutbox.inbox.Inbox.Status;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Claims whose outcome is recorded in the same transaction ({@link Inbox#claimAllPresumingSuccess}
 * then {@link Inbox#correctPresumedSuccesses}): a key is written once, and the guarantees of a
 * claim in two steps still hold.
 */
class InboxPresumedSuccessIT {

  private static Database database;
  private final Inbox inbox = Inbox.builder().build();
  private final Scope scope = Scope.of("presumed-success");

  @BeforeAll
  static void createDatabase() {
    database = MigratedDatabase.create();
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void aBatchOfSuccessesWritesEachKeyOnceAndOnlyOtherOutcomesWriteTheirRowAgain() throws Exception {
    List<ClaimRequest> requests = List.of(request(), request(), request(), request());
    List<Outcome> outcomes =
        List.of(
            Outcome.success(),
            Outcome.rejected(409, "{\"reason\":\"cancelled\"}"),
            Outcome.success(),
            Outcome.success("{\"orderId\":7}"));
    long[] writes;
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      List<ClaimResult> claims = inbox.claimAllPresumingSuccess(connection, requests);
      List<Completion> completions = new ArrayList<>();
      for (int i = 0; i < claims.size(); i++) {
        completions.add(Completion.of((ClaimResult.New) claims.get(i), outcomes.get(i)));
      }
      inbox.correctPresumedSuccesses(connection, completions);
      writes = inboxWritesInThisTransaction(connection);
      connection.commit();
    }

    assertThat(writes).as("rows inserted, rows updated").containsExactly(4, 2);
    for (int i = 0; i < requests.size(); i++) {
      ClaimRequest request = requests.get(i);
      ClaimResult again = inTransaction(c -> inbox.claim(c, request));
      Inbox.Entry original = ((ClaimResult.Duplicate) again).original();
      assertThat(original.outcome()).contains(outcomes.get(i));
      assertThat(original.status())
          .isEqualTo(outcomes.get(i).isRejection() ? Status.FAILED : Status.COMPLETED);
    }
  }

  @Test
  void aRolledBackBatchLeavesNoKeyBehind() throws Exception {
    ClaimRequest request = request();
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      inbox.claimAllPresumingSuccess(connection, List.of(request));
      connection.rollback();
    }

    Optional<Inbox.Entry> stored = inTransaction(c -> inbox.find(c, scope, request.key()));
    ClaimResult retried = inTransaction(c -> inbox.claim(c, request));
    assertThat(stored).isEmpty();
    assertThat(retried).isInstanceOf(ClaimResult.New.class);
  }

  @Test
  void aConcurrentDuplicateWaitsForTheClaimAndReadsTheCorrectedOutcome() throws Exception {
    ClaimRequest request = request();
    Outcome rejection = Outcome.rejected("{\"reason\":\"out of stock\"}");
    CompletableFuture<ClaimResult> duplicate;
    try (Connection first = database.connect()) {
      first.setAutoCommit(false);
      ClaimResult.New claim =
          (ClaimResult.New) inbox.claimAllPresumingSuccess(first, List.of(request)).get(0);
      duplicate =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return inTransaction(
                      c -> inbox.claimAllPresumingSuccess(c, List.of(request)).get(0));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      awaitWaitingOnALock();
      inbox.correctPresumedSuccesses(first, List.of(Completion.of(claim, rejection)));
      first.commit();
    }

    ClaimResult seen = duplicate.get(30, TimeUnit.SECONDS);
    assertThat(seen).isInstanceOf(ClaimResult.Duplicate.class);
    assertThat(((ClaimResult.Duplicate) seen).original().outcome()).contains(rejection);
  }

  @Test
  void theSameKeyWithAnotherPayloadIsAConflictAndLeavesTheStoredOutcome() throws Exception {
    IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
    ClaimRequest original = ClaimRequest.ofJson(scope, key, "{\"qty\":1}");
    inTransaction(c -> inbox.claimAllPresumingSuccess(c, List.of(original)));

    ClaimResult reused =
        inTransaction(
            c ->
                inbox
                    .claimAllPresumingSuccess(
                        c, List.of(ClaimRequest.ofJson(scope, key, "{\"qty\":2}")))
                    .get(0));

    assertThat(reused).isInstanceOf(ClaimResult.Conflict.class);
    assertThat(((ClaimResult.Conflict) reused).original().requestHash())
        .isEqualTo(original.requestHash());
  }

  @Test
  void correctingAKeyNotClaimedThatWayInThisTransactionIsRefused() throws Exception {
    ClaimRequest committedEarlier = request();
    inTransaction(c -> inbox.claimAllPresumingSuccess(c, List.of(committedEarlier)));
    ClaimRequest processing = request();

    assertThatThrownBy(
            () ->
                inTransaction(
                    c -> {
                      inbox.correctPresumedSuccesses(
                          c,
                          List.of(
                              Completion.of(
                                  new ClaimResult.New(committedEarlier), Outcome.rejected("{}"))));
                      return null;
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("recorded 0 of 1");
    assertThatThrownBy(
            () ->
                inTransaction(
                    c -> {
                      ClaimResult.New claim = (ClaimResult.New) inbox.claim(c, processing);
                      inbox.correctPresumedSuccesses(
                          c, List.of(Completion.of(claim, Outcome.rejected("{}"))));
                      return null;
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(
            ((ClaimResult.Duplicate) inTransaction(c -> inbox.claim(c, committedEarlier)))
                .original()
                .outcome())
        .contains(Outcome.success());
  }

  /** Rows this transaction inserted into and updated in the inbox so far. */
  private static long[] inboxWritesInThisTransaction(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                """
                SELECT pg_stat_get_xact_tuples_inserted('inbox'::regclass),
                       pg_stat_get_xact_tuples_updated('inbox'::regclass)
                """)) {
      row.next();
      return new long[] {row.getLong(1), row.getLong(2)};
    }
  }

  /** Returns once some session waits on a lock, as the duplicate claim does on the index entry. */
  private static void awaitWaitingOnALock() {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              try (Connection connection = database.connect();
                  Statement statement = connection.createStatement();
                  ResultSet row =
                      statement.executeQuery(
                          "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
                row.next();
                return row.getLong(1) > 0;
              }
            });
  }

  private ClaimRequest request() {
    return ClaimRequest.ofJson(
        scope, IdempotencyKey.of(UUID.randomUUID().toString()), "{\"sku\":\"A\"}");
  }

  private static <T> T inTransaction(TransactionRunner.Work<T> work) throws Exception {
    return TransactionRunner.fromDataSource(database.dataSource()).inTransaction(work);
  }
}
