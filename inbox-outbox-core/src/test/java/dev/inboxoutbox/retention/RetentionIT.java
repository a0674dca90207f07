package dev.inboxoutbox.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.Entry;
import dev.inboxoutbox.inbox.Inbox.Status;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.testing.jdbc.Rows;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class RetentionIT {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Duration RUN_BUDGET = Duration.ofMillis(100);
  private static final Duration PAUSE = Duration.ofMillis(10);
  private static final Scope ORDERS = Scope.of("order-consumer");
  private static final String SEEDED_JSON = "{\"seeded\":true}";
  private static final String SEEDED_HASH =
      ClaimRequest.ofJson(Scope.of("any"), IdempotencyKey.of("any"), SEEDED_JSON).requestHash();

  /** gone- and stale- rows. */
  private static final int EXPIRED_KEYS = 47 + 3;

  /** pruned- and rejected- rows. */
  private static final int EXPIRED_OUTCOMES = 20 + 5;

  /** old-published- rows. */
  private static final int EXPIRED_OUTBOX_ROWS = 5;

  private Database database;

  @BeforeEach
  void seed() throws SQLException {
    database = MigratedDatabase.create();
    execute(
        // Deleted: keys past their TTL, bodies too; and abandoned claims nobody holds.
        inboxRows(
            "gone-", 47, "COMPLETED", "now() - interval '2 hours'", "now() - interval '1 hour'"),
        inboxRows(
            "stale-", 3, "PROCESSING", "now() - interval '2 hours'", "now() - interval '1 hour'"),
        // Pruned: the body expired, the key stays.
        inboxRows(
            "pruned-", 20, "COMPLETED", "now() - interval '1 hour'", "now() + interval '1 day'"),
        inboxRows(
            "rejected-", 5, "FAILED", "now() - interval '1 hour'", "now() + interval '1 day'"),
        // Untouched: nothing expired; in flight; pruned by an earlier run.
        inboxRows("alive-", 10, "FAILED", "now() + interval '1 hour'", "now() + interval '1 day'"),
        inboxRows(
            "flight-", 5, "PROCESSING", "now() - interval '1 hour'", "now() + interval '1 day'"),
        inboxRows(
            "bare-", 4, "COMPLETED", "now() - interval '2 hours'", "now() + interval '1 day'"),
        "UPDATE inbox SET outcome_body = NULL, outcome_pruned_at = now() - interval '1 hour'"
            + " WHERE idempotency_key LIKE 'bare-%'",
        // Untouched: an outcome without a body has nothing to prune.
        inboxRows(
            "bodiless-", 3, "COMPLETED", "now() - interval '1 hour'", "now() + interval '1 day'"),
        "UPDATE inbox SET outcome_body = NULL WHERE idempotency_key LIKE 'bodiless-%'",
        // Outbox, default keep of 7 days: only the first group goes.
        outboxRows("old-published-", 5, "now() - interval '10 days'", "now() - interval '10 days'"),
        outboxRows("old-unpublished-", 3, "now() - interval '10 days'", "NULL"),
        outboxRows("kept-", 2, "now() - interval '6 days'", "now() - interval '6 days'"),
        outboxRows("recent-", 4, "now() - interval '1 hour'", "now()"));
  }

  @AfterEach
  void drop() {
    database.close();
  }

  @Test
  void removesExactlyTheExpiredRowsInSeveralBatches() throws SQLException {
    RetentionCleaner cleaner = cleaner().batchSize(7).build();

    RetentionCleaner.Report report = cleaner.run();

    assertThat(report.keysDeleted()).isEqualTo(EXPIRED_KEYS);
    assertThat(report.outcomesPruned()).isEqualTo(EXPIRED_OUTCOMES);
    assertThat(report.outboxRowsDeleted()).isEqualTo(EXPIRED_OUTBOX_ROWS);
    assertThat(report.batches())
        .as("50 keys: 7 full + 1 short, 25 bodies: 3 + 1, 5 outbox rows: 1")
        .isEqualTo(13);
    assertThat(report.complete()).isTrue();

    assertThat(inboxCount("gone-")).isZero();
    assertThat(inboxCount("stale-")).as("abandoned claims past their key TTL").isZero();
    assertThat(inboxCount("pruned-", "outcome_body IS NULL AND outcome_pruned_at IS NOT NULL"))
        .isEqualTo(20);
    assertThat(inboxCount("rejected-", "outcome_body IS NULL AND outcome_pruned_at IS NOT NULL"))
        .isEqualTo(5);
    assertThat(inboxCount("alive-", "outcome_body IS NOT NULL AND outcome_pruned_at IS NULL"))
        .isEqualTo(10);
    assertThat(inboxCount("flight-", "status = 'PROCESSING' AND outcome_pruned_at IS NULL"))
        .as("PROCESSING rows are never pruned")
        .isEqualTo(5);
    assertThat(inboxCount("bare-", "outcome_pruned_at < now() - interval '30 minutes'"))
        .as("pruned once, not again")
        .isEqualTo(4);
    assertThat(inboxCount("bodiless-", "outcome_pruned_at IS NULL"))
        .as("a bare outcome is kept until its key goes")
        .isEqualTo(3);
    assertThat(count("SELECT count(*) FROM inbox")).isEqualTo(20 + 5 + 10 + 5 + 4 + 3);

    assertThat(outboxCount("old-published-")).isZero();
    assertThat(outboxCount("old-unpublished-"))
        .as("unpublished rows stay, however old")
        .isEqualTo(3);
    assertThat(outboxCount("kept-")).isEqualTo(2);
    assertThat(outboxCount("recent-")).isEqualTo(4);

    assertThat(report.oldestKeyExpiry()).contains(instant("SELECT min(expires_at) FROM inbox"));
    assertThat(report.backlog().get(RetentionCleaner.Step.DELETE_PUBLISHED_OUTBOX_ROWS).oldestDue())
        .contains(
            instant("SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL")
                .plus(RetentionCleaner.Builder.DEFAULT_OUTBOX_KEEP));

    RetentionCleaner.Report again = cleaner.run();
    assertThat(again.rowsAffected()).isZero();
    assertThat(again.batches()).as("one empty batch per step").isEqualTo(3);
    assertThat(again.complete()).isTrue();
  }

  @Test
  void aPrunedKeyStillMakesALateRepeatADuplicate() throws SQLException {
    Inbox inbox = Inbox.builder().build();
    ClaimRequest request =
        ClaimRequest.ofJson(ORDERS, IdempotencyKey.of("late-repeat"), "{\"sku\":\"A\"}");
    try (Connection consumer = database.connect()) {
      consumer.setAutoCommit(false);
      inbox.complete(
          consumer,
          (ClaimResult.New) inbox.claim(consumer, request),
          Outcome.success("{\"orderId\":42}"));
      consumer.commit();
    }
    // As if the outcome TTL had passed.
    execute(
        "UPDATE inbox SET outcome_expires_at = now() - interval '1 second' WHERE idempotency_key ="
            + " 'late-repeat'");

    cleaner().build().run();

    ClaimResult repeat;
    try (Connection consumer = database.connect()) {
      consumer.setAutoCommit(false);
      repeat = inbox.claim(consumer, request);
      consumer.commit();
    }
    assertThat(repeat).isInstanceOf(ClaimResult.Duplicate.class);
    Entry original = ((ClaimResult.Duplicate) repeat).original();
    assertThat(original.status()).isEqualTo(Status.COMPLETED);
    assertThat(original.outcome()).as("the body is gone").isEmpty();
    assertThat(original.outcomePrunedAt()).isPresent();
    assertThat(inboxCount("late-repeat", "outcome_body IS NULL")).isEqualTo(1);
  }

  @Test
  void previewChangesNothingAndCountsExactlyWhatTheNextRunRemoves() throws SQLException {
    RetentionCleaner cleaner = cleaner().batchSize(7).build();
    String fingerprint =
        "SELECT (SELECT count(*) FROM inbox) * 1000000 + (SELECT count(*) FROM inbox WHERE"
            + " outcome_body IS NULL) * 1000 + (SELECT count(*) FROM outbox)";
    long before = count(fingerprint);
    Instant oldestKeyExpiry = instant("SELECT min(expires_at) FROM inbox");
    Instant oldestPublished =
        instant("SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL");

    RetentionCleaner.Preview preview = cleaner.preview();

    assertThat(count(fingerprint)).isEqualTo(before);
    assertThat(preview)
        .isEqualTo(
            new RetentionCleaner.Preview(
                EXPIRED_OUTCOMES,
                EXPIRED_KEYS,
                EXPIRED_OUTBOX_ROWS,
                Optional.of(oldestKeyExpiry),
                Optional.of(oldestPublished)));

    RetentionCleaner.Report report = cleaner.run();

    assertThat(report.outcomesPruned()).isEqualTo(preview.outcomesToPrune());
    assertThat(report.keysDeleted()).isEqualTo(preview.keysToDelete());
    assertThat(report.outboxRowsDeleted()).isEqualTo(preview.outboxRowsToDelete());
    RetentionCleaner.Preview afterwards = cleaner.preview();
    assertThat(
            List.of(
                afterwards.outcomesToPrune(),
                afterwards.keysToDelete(),
                afterwards.outboxRowsToDelete()))
        .containsOnly(0L);
    assertThat(afterwards.oldestKeyExpiry()).isEqualTo(report.oldestKeyExpiry());
    assertThat(afterwards.oldestPublishedOutboxRow())
        .map(created -> created.plus(RetentionCleaner.Builder.DEFAULT_OUTBOX_KEEP))
        .isEqualTo(
            report.backlog().get(RetentionCleaner.Step.DELETE_PUBLISHED_OUTBOX_ROWS).oldestDue());
  }

  @Test
  void unpublishedOutboxRowsStayEvenWhenPublishedOnesAreKeptNotAtAll() throws SQLException {
    RetentionCleaner cleaner = cleaner().outboxKeep(Duration.ZERO).build();

    assertThat(cleaner.preview().outboxRowsToDelete()).isEqualTo(5 + 2 + 4);
    RetentionCleaner.Report report = cleaner.run();

    assertThat(report.outboxRowsDeleted()).isEqualTo(5 + 2 + 4);
    assertThat(count("SELECT count(*) FROM outbox")).isEqualTo(3);
    assertThat(outboxCount("old-unpublished-")).isEqualTo(3);
    assertThat(report.backlog().get(RetentionCleaner.Step.DELETE_PUBLISHED_OUTBOX_ROWS).oldestDue())
        .isEmpty();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void rowsAConsumerHoldsAreSkippedWithoutWaitingAndTakenByALaterRun() throws SQLException {
    RetentionCleaner cleaner = cleaner().batchSize(7).build();

    try (Connection consumer = database.connect()) {
      consumer.setAutoCommit(false);
      try (Statement statement = consumer.createStatement()) {
        // An in-flight claim past its key TTL, a body due for pruning, an outbox row due for
        // deletion.
        statement.execute(
            "SELECT 1 FROM inbox WHERE idempotency_key IN ('stale-1', 'pruned-1') FOR UPDATE");
        statement.execute("SELECT 1 FROM outbox WHERE aggregateid = 'old-published-1' FOR UPDATE");
      }

      // Returning at all while the locks are held shows the cleaner did not wait for them.
      RetentionCleaner.Report whileHeld = cleaner.run();

      assertThat(whileHeld.keysDeleted()).isEqualTo(EXPIRED_KEYS - 1);
      assertThat(whileHeld.outcomesPruned()).isEqualTo(EXPIRED_OUTCOMES - 1);
      assertThat(whileHeld.outboxRowsDeleted()).isEqualTo(EXPIRED_OUTBOX_ROWS - 1);
      assertThat(whileHeld.complete()).isTrue();
      assertThat(inboxCount("stale-1")).isEqualTo(1);
      assertThat(inboxCount("pruned-1", "outcome_body IS NOT NULL")).isEqualTo(1);
      assertThat(outboxCount("old-published-1")).isEqualTo(1);
      consumer.commit();
    }

    RetentionCleaner.Report afterRelease = cleaner.run();

    assertThat(afterRelease.keysDeleted()).isEqualTo(1);
    assertThat(afterRelease.outcomesPruned()).isEqualTo(1);
    assertThat(afterRelease.outboxRowsDeleted()).isEqualTo(1);
    assertThat(inboxCount("stale-1")).isZero();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void cleaningWhileAConsumerKeepsClaimingRemovesExactlyTheExpiredRowsAndTheConsumerSeesNoErrors()
      throws Exception {
    int bulk = 2000;
    execute(
        inboxRows(
            "bulk-",
            bulk,
            "COMPLETED",
            "now() - interval '3 hours'",
            "now() - interval '2 hours'"));
    RetentionCleaner cleaner =
        cleaner().batchSize(50).pauseBetweenBatches(Duration.ofMillis(5)).build();
    Inbox inbox = Inbox.builder().build();
    Set<String> freshKeys = ConcurrentHashMap.newKeySet();
    Set<String> reclaimedExpiredKeys = ConcurrentHashMap.newKeySet();
    AtomicLong transactions = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService claimerThread = Executors.newSingleThreadExecutor();
    Future<?> claimer =
        claimerThread.submit(
            () -> {
              try (Connection connection = database.connect()) {
                connection.setAutoCommit(false);
                for (int round = 1; !stop.get(); round++) {
                  // Fresh keys, plus a key the cleaner is deleting right now or has just deleted.
                  List<ClaimRequest> requests = new ArrayList<>();
                  for (int i = 0; i < 5; i++) {
                    requests.add(request("fresh-" + UUID.randomUUID(), "{\"i\":" + i + "}"));
                  }
                  String expired = "gone-" + (1 + round % 47);
                  requests.add(request(expired, SEEDED_JSON));
                  List<ClaimResult> results = inbox.claimAll(connection, requests);
                  List<Inbox.Completion> completions = new ArrayList<>();
                  for (ClaimResult result : results) {
                    if (result instanceof ClaimResult.New claim) {
                      completions.add(
                          new Inbox.Completion(
                              claim, Outcome.success("{\"round\":" + round + "}")));
                    } else if (!result.request().key().value().equals(expired)) {
                      throw new AssertionError("a fresh key was not new: " + result);
                    }
                  }
                  inbox.completeAll(connection, completions);
                  connection.commit();
                  for (Inbox.Completion completion : completions) {
                    String key = completion.claim().request().key().value();
                    (key.equals(expired) ? reclaimedExpiredKeys : freshKeys).add(key);
                  }
                  transactions.incrementAndGet();
                }
              }
              return null;
            });

    await("the consumer claiming")
        .atMost(PATIENCE)
        .until(() -> transactions.get() >= 10 || claimer.isDone());
    RetentionCleaner.Report report = cleaner.run();
    long claimedSoFar = transactions.get();
    await("the consumer claiming on")
        .atMost(PATIENCE)
        .until(() -> transactions.get() >= claimedSoFar + 10 || claimer.isDone());
    stop.set(true);
    claimer.get(30, TimeUnit.SECONDS);
    claimerThread.shutdown();

    assertThat(report.keysDeleted()).isEqualTo(bulk + EXPIRED_KEYS);
    assertThat(report.outcomesPruned()).isEqualTo(EXPIRED_OUTCOMES);
    assertThat(report.complete()).isTrue();
    assertThat(count("SELECT count(*) FROM inbox WHERE expires_at <= now()")).isZero();
    assertThat(inboxCount("bulk-")).isZero();
    assertThat(inboxCount("fresh-", "status = 'COMPLETED'"))
        .isEqualTo(freshKeys.size())
        .isPositive();
    assertThat(inboxCount("gone-"))
        .as("expired keys claimed again after their deletion are new rows")
        .isEqualTo(reclaimedExpiredKeys.size());
    assertThat(
            inboxCount("pruned-")
                + inboxCount("rejected-")
                + inboxCount("alive-")
                + inboxCount("flight-")
                + inboxCount("bare-"))
        .isEqualTo(20 + 5 + 10 + 5 + 4);
  }

  @Test
  void aRunStopsWhenItsTimeBudgetIsSpentAndTheNextRunsFinishTheWork() {
    RetentionCleaner.Preview preview = cleaner().build().preview();
    RetentionCleaner cutShort = onTheTicker(cleaner().batchSize(1), RUN_BUDGET).build();

    RetentionCleaner.Report first = cutShort.run();

    assertThat(first.complete()).isFalse();
    assertThat(first.rowsAffected()).isPositive().isLessThan(preview.keysToDelete());
    List<RetentionCleaner.Report> reports = new ArrayList<>(List.of(first));
    while (!reports.get(reports.size() - 1).complete()) {
      reports.add(cutShort.run());
    }
    assertThat(reports.stream().mapToLong(RetentionCleaner.Report::keysDeleted).sum())
        .isEqualTo(preview.keysToDelete());
    assertThat(reports.stream().mapToLong(RetentionCleaner.Report::outcomesPruned).sum())
        .isEqualTo(preview.outcomesToPrune());
    assertThat(reports.stream().mapToLong(RetentionCleaner.Report::outboxRowsDeleted).sum())
        .isEqualTo(preview.outboxRowsToDelete());
  }

  @Test
  void aRunCutShortStillGivesEveryStepAShare() {
    RetentionCleaner.Report cutShort =
        onTheTicker(cleaner().batchSize(1), RUN_BUDGET).build().run();

    assertThat(cutShort.complete()).isFalse();
    assertThat(cutShort.keysDeleted()).isPositive().isLessThan(EXPIRED_KEYS);
    assertThat(cutShort.outcomesPruned()).as("bodies pruned").isPositive();
    assertThat(cutShort.outboxRowsDeleted()).as("outbox rows deleted").isPositive();
  }

  @Test
  void timeAFinishedStepDoesNotNeedGoesToTheStepsStillBehind() throws SQLException {
    cleaner().build().run();
    execute(
        inboxRows(
            "backlog-",
            500,
            "COMPLETED",
            "now() - interval '3 hours'",
            "now() - interval '2 hours'"));

    RetentionCleaner.Report run = onTheTicker(cleaner().batchSize(1), RUN_BUDGET).build().run();

    long batchesInAThirdOfTheRun = RUN_BUDGET.dividedBy(PAUSE) / 3 + 1;
    assertThat(run.complete()).isFalse();
    assertThat(run.keysDeleted())
        .as("keys get the run's time the other, finished steps left")
        .isGreaterThan(2 * batchesInAThirdOfTheRun - 1);
  }

  @Test
  void aScheduleThatEndsBehindStartsTheNextRunAtOnce() {
    RetentionCleaner cutShort = onTheTicker(cleaner().batchSize(1), RUN_BUDGET).build();
    try (RetentionCleaner.Schedule schedule = cutShort.schedule(Duration.ofHours(1))) {
      await("everything expired removed by back-to-back runs")
          .atMost(PATIENCE)
          .until(() -> cleaner().build().preview().keysToDelete() == 0);
      assertThat(schedule.runs()).isGreaterThan(1);
    }
  }

  @Test
  void theReportShowsEachStepsBacklogAndHowFarBehindItIs() throws SQLException {
    execute(
        inboxRows(
            "backlog-",
            500,
            "COMPLETED",
            "now() - interval '3 hours'",
            "now() - interval '2 hours'"));
    Instant keyDue = instant("SELECT min(expires_at) FROM inbox");

    RetentionCleaner.Report behind = onTheTicker(cleaner().batchSize(1), RUN_BUDGET).build().run();

    RetentionCleaner.Backlog keys = behind.backlog().get(RetentionCleaner.Step.DELETE_EXPIRED_KEYS);
    assertThat(keys.overdueRows()).isEqualTo(500 + EXPIRED_KEYS - behind.keysDeleted());
    assertThat(keys.countCapped()).isFalse();
    assertThat(keys.oldestDue()).contains(keyDue);
    assertThat(keys.overdue(Instant.now())).isGreaterThan(Duration.ofMinutes(59));
    assertThat(behind.overdue(Instant.now())).isGreaterThan(Duration.ofMinutes(59));
    assertThat(behind.backlog().get(RetentionCleaner.Step.PRUNE_OUTCOME_BODIES).overdueRows())
        .as("bodies on keys not yet deleted count too")
        .isEqualTo(
            count(
                "SELECT count(*) FROM inbox WHERE outcome_body IS NOT NULL"
                    + " AND outcome_pruned_at IS NULL AND status <> 'PROCESSING'"
                    + " AND outcome_expires_at <= now()"));

    RetentionCleaner.Report caughtUp = cleaner().build().run();

    assertThat(caughtUp.complete()).isTrue();
    assertThat(caughtUp.backlog().values())
        .allSatisfy(left -> assertThat(left.overdueRows()).isZero());
    assertThat(caughtUp.overdue(Instant.now())).isEqualTo(Duration.ZERO);
    assertThat(
            caughtUp.backlog().get(RetentionCleaner.Step.DELETE_PUBLISHED_OUTBOX_ROWS).oldestDue())
        .as("the oldest kept published row is due outbox-keep after its creation")
        .contains(
            instant("SELECT min(created_at) FROM outbox WHERE published_at IS NOT NULL")
                .plus(RetentionCleaner.Builder.DEFAULT_OUTBOX_KEEP));
  }

  @Test
  void aFailureNamesTheStepAndKeepsWhatEarlierStepsCommitted() throws SQLException {
    execute("ALTER TABLE outbox RENAME TO outbox_elsewhere");

    assertThatThrownBy(() -> cleaner().build().run())
        .isInstanceOf(RetentionException.class)
        .hasMessageContaining("deleting published outbox rows")
        .hasMessageContaining("outbox");
    assertThat(inboxCount("gone-")).isZero();
    assertThat(inboxCount("pruned-", "outcome_body IS NULL")).isEqualTo(20);
  }

  @Test
  void theSchedulerRunsRepeatedlyReportsAndOutlivesFailures() throws Exception {
    List<RetentionCleaner.Report> reports = new CopyOnWriteArrayList<>();
    List<RetentionCleaner.Report> finishedBeforeTheClose;
    try (RetentionCleaner.Schedule scheduler =
        cleaner().build().schedule(Duration.ofMillis(100), reports::add)) {
      await("three runs").atMost(PATIENCE).until(() -> scheduler.runs() >= 3);

      assertThat(scheduler.failures()).isZero();
      assertThat(reports.get(0).rowsAffected())
          .isEqualTo(EXPIRED_KEYS + EXPIRED_OUTCOMES + EXPIRED_OUTBOX_ROWS);
      assertThat(reports.stream().skip(1).mapToLong(RetentionCleaner.Report::rowsAffected).sum())
          .isZero();
      assertThat(scheduler.lastReport()).isPresent();

      execute("ALTER TABLE outbox RENAME TO outbox_elsewhere");
      await("two failed runs").atMost(PATIENCE).until(() -> scheduler.failures() >= 2);
      execute("ALTER TABLE outbox_elsewhere RENAME TO outbox");
      long runsBeforeRecovery = scheduler.runs();
      await("two more runs after the failures")
          .atMost(PATIENCE)
          .until(() -> scheduler.runs() >= runsBeforeRecovery + 2);
      finishedBeforeTheClose = List.copyOf(reports);
    }
    // Closing interrupts a run that has started meanwhile, which then reports itself incomplete.
    assertThat(finishedBeforeTheClose).allSatisfy(report -> assertThat(report.complete()).isTrue());
  }

  /** The run's clock moves only by the pauses, so what fits in a budget is the same every time. */
  private static RetentionCleaner.Builder onTheTicker(
      RetentionCleaner.Builder builder, Duration budget) {
    return builder.runBudget(budget).pauseBetweenBatches(PAUSE).ticker(new PauseDrivenTicker());
  }

  private static final class PauseDrivenTicker implements Ticker {
    private final AtomicLong now = new AtomicLong();

    @Override
    public long nanoTime() {
      return now.get();
    }

    @Override
    public void sleep(Duration pause) throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException("closed");
      }
      now.addAndGet(pause.toNanos());
    }
  }

  private RetentionCleaner.Builder cleaner() {
    return RetentionCleaner.builder(database.dataSource());
  }

  private static ClaimRequest request(String key, String json) {
    return ClaimRequest.ofJson(ORDERS, IdempotencyKey.of(key), json);
  }

  private static String inboxRows(
      String prefix, int rows, String status, String outcomeExpiresAt, String expiresAt) {
    String kind =
        switch (status) {
          case "COMPLETED" -> "'SUCCESS'";
          case "FAILED" -> "'REJECTED'";
          default -> "NULL";
        };
    String body = kind.equals("NULL") ? "NULL" : "'{\"orderId\": 1}'::jsonb";
    return "INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind,"
        + " outcome_body, outcome_expires_at, expires_at) SELECT '"
        + ORDERS.operation()
        + "', '"
        + prefix
        + "' || g, '"
        + SEEDED_HASH
        + "', '"
        + status
        + "', "
        + kind
        + ", "
        + body
        + ", "
        + outcomeExpiresAt
        + ", "
        + expiresAt
        + " FROM generate_series(1, "
        + rows
        + ") g";
  }

  private static String outboxRows(String prefix, int rows, String createdAt, String publishedAt) {
    return "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at,"
        + " published_at) SELECT gen_random_uuid(), 'order', '"
        + prefix
        + "' || g, 'OrderPlaced', '{}'::jsonb, "
        + createdAt
        + ", "
        + publishedAt
        + " FROM generate_series(1, "
        + rows
        + ") g";
  }

  private long inboxCount(String keyPrefix) throws SQLException {
    return inboxCount(keyPrefix, "true");
  }

  private long inboxCount(String keyPrefix, String condition) throws SQLException {
    return count(
        "SELECT count(*) FROM inbox WHERE idempotency_key LIKE '"
            + keyPrefix
            + "%' AND "
            + condition);
  }

  private long outboxCount(String aggregatePrefix) throws SQLException {
    return count("SELECT count(*) FROM outbox WHERE aggregateid LIKE '" + aggregatePrefix + "%'");
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private long count(String sql) {
    return Rows.count(database.dataSource(), sql);
  }

  private Instant instant(String sql) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getObject(1, OffsetDateTime.class).toInstant();
    }
  }
}
