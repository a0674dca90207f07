package dev.inboxoutbox.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.Await;
import dev.inboxoutbox.MigratedDatabase;
import dev.inboxoutbox.devstack.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RetentionIT {

  private Database database;

  @BeforeEach
  void seed() throws SQLException {
    database = MigratedDatabase.create();
    execute(
        // 50 keys past their TTL (bodies too), 20 with only the body expired, 10 alive,
        // 5 still in flight with an expired body date.
        insertInbox("gone-", 50, "'COMPLETED'", "'SUCCESS'", "now() - interval '2 hours'", "now() - interval '1 hour'"),
        insertInbox("pruned-", 20, "'COMPLETED'", "'SUCCESS'", "now() - interval '1 hour'", "now() + interval '1 day'"),
        insertInbox("alive-", 10, "'FAILED'", "'REJECTED'", "now() + interval '1 hour'", "now() + interval '1 day'"),
        insertInbox("flight-", 5, "'PROCESSING'", "NULL", "now() - interval '1 hour'", "now() + interval '1 day'"),
        insertOutbox(5, "now() - interval '10 days'", "now() - interval '10 days'"),
        insertOutbox(3, "now() - interval '10 days'", "NULL"),
        insertOutbox(4, "now() - interval '1 hour'", "now()"));
  }

  @AfterEach
  void drop() {
    database.close();
  }

  @Test
  void removesExactlyTheExpiredRowsInBoundedBatchesAndPreviewAgrees() throws SQLException {
    RetentionCleaner cleaner = new RetentionCleaner(database.dataSource(), RetentionPolicy.defaults().withBatchSize(7));

    RetentionPreview preview = cleaner.preview();
    RetentionReport report = cleaner.run();

    assertThat(preview).isEqualTo(new RetentionPreview(70, 50, 5));
    assertThat(report.outcomesPruned()).isEqualTo(70);
    assertThat(report.keysDeleted()).isEqualTo(50);
    assertThat(report.outboxRowsDeleted()).isEqualTo(5);
    assertThat(report.batches()).isGreaterThanOrEqualTo(11 + 8 + 1);
    assertThat(report.complete()).isTrue();
    assertThat(report.oldestKeyExpiry()).isPresent();
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key LIKE 'gone-%'")).isZero();
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key LIKE 'pruned-%'"
        + " AND outcome_body IS NULL AND outcome_pruned_at IS NOT NULL")).as("keys outlive bodies").isEqualTo(20);
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key LIKE 'alive-%' AND outcome_body IS NOT NULL")).isEqualTo(10);
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key LIKE 'flight-%' AND outcome_pruned_at IS NULL")).isEqualTo(5);
    assertThat(count("SELECT count(*) FROM outbox WHERE published_at IS NULL")).as("unpublished rows stay").isEqualTo(3);
    assertThat(count("SELECT count(*) FROM outbox")).isEqualTo(7);
    assertThat(cleaner.preview()).isEqualTo(new RetentionPreview(0, 0, 0));
  }

  @Test
  void aRowLockedByAConsumerIsSkippedWithoutWaitingAndTakenNextTime() throws SQLException {
    RetentionCleaner cleaner = new RetentionCleaner(database.dataSource(), RetentionPolicy.defaults());
    try (Connection consumer = database.connect()) {
      consumer.setAutoCommit(false);
      try (Statement statement = consumer.createStatement()) {
        statement.execute("SELECT 1 FROM inbox WHERE idempotency_key = 'gone-1' FOR UPDATE");
      }
      RetentionReport whileLocked = cleaner.run();
      assertThat(whileLocked.keysDeleted()).isEqualTo(49);
      assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key = 'gone-1'")).isEqualTo(1);
      consumer.commit();
    }
    assertThat(cleaner.run().keysDeleted()).isEqualTo(1);
  }

  @Test
  void aRunStopsAtMaxBatchesAndSaysSo() {
    RetentionCleaner cleaner =
        new RetentionCleaner(database.dataSource(), RetentionPolicy.defaults().withBatchSize(10).withMaxBatchesPerRun(1));
    RetentionReport report = cleaner.run();
    assertThat(report.complete()).isFalse();
    assertThat(report.total()).isEqualTo(10);
  }

  @Test
  void theSchedulerRunsRepeatedlyAndReports() throws InterruptedException {
    RetentionCleaner cleaner = new RetentionCleaner(database.dataSource(), RetentionPolicy.defaults());
    long[] removed = {0};
    try (RetentionScheduler scheduler =
        new RetentionScheduler(cleaner, Duration.ofMillis(100), report -> removed[0] += report.total()).start()) {
      awaitTrue(() -> scheduler.runs() >= 3, "three runs");
      assertThat(scheduler.failures()).isZero();
      assertThat(scheduler.lastReport()).isPresent();
    }
    assertThat(removed[0]).isEqualTo(70 + 50 + 5);
  }

  @Test
  void policyValuesAreChecked() {
    assertThatThrownBy(() -> RetentionPolicy.defaults().withBatchSize(0)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> RetentionPolicy.defaults().withMaxBatchesPerRun(-1)).hasMessageContaining("maxBatchesPerRun");
    assertThatThrownBy(() -> RetentionPolicy.defaults().withOutboxKeep(Duration.ofSeconds(-1))).hasMessageContaining("outboxKeep");
  }

  private static String insertInbox(
      String prefix, int rows, String status, String kind, String outcomeExpires, String expires) {
    String body = kind.equals("NULL") ? "NULL" : "'{\"ok\":true}'::jsonb";
    return "INSERT INTO inbox (operation, idempotency_key, request_hash, status, outcome_kind, outcome_body,"
        + " outcome_expires_at, expires_at) SELECT 'order-consumer', '" + prefix + "' || g, repeat('a', 64), "
        + status + ", " + kind + ", " + body + ", " + outcomeExpires + ", " + expires
        + " FROM generate_series(1, " + rows + ") g";
  }

  private static String insertOutbox(int rows, String created, String published) {
    return "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at, published_at)"
        + " SELECT gen_random_uuid(), 'order', 'o-' || g, 'OrderPlaced', '{}'::jsonb, " + created + ", " + published
        + " FROM generate_series(1, " + rows + ") g";
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private int count(String sql) throws SQLException {
    try (Connection connection = database.connect();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getInt(1);
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    Await.until(condition, what, Duration.ofSeconds(30));
  }
}
