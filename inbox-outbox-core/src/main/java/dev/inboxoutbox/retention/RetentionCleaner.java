package dev.inboxoutbox.retention;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what retention says is expired, in bounded batches, each its own short transaction.
 * Batches are chosen through the expiry indexes and skip rows a consumer has locked ({@code FOR
 * UPDATE SKIP LOCKED}), so cleanup never waits on, or blocks, a consumer.
 *
 * <ol>
 *   <li>outcome bodies past {@code outcome_expires_at} are dropped (the key row stays and keeps
 *       deduplicating); rows still {@code PROCESSING} are left alone;
 *   <li>inbox rows past {@code expires_at} are deleted;
 *   <li>published outbox rows older than {@link RetentionPolicy#outboxKeep()} are deleted; an
 *       unpublished row is never deleted.
 * </ol>
 */
public final class RetentionCleaner {

  private static final Logger log = LoggerFactory.getLogger(RetentionCleaner.class);

  private static final String EXPIRED_OUTCOMES =
      "outcome_pruned_at IS NULL AND outcome_expires_at <= now() AND status <> 'PROCESSING'";
  private static final String EXPIRED_KEYS = "expires_at <= now()";
  private static final String EXPIRED_OUTBOX =
      "published_at IS NOT NULL AND created_at <= now() - make_interval(secs => ?)";

  private static final String PRUNE_OUTCOMES =
      "UPDATE inbox SET outcome_body = NULL, outcome_pruned_at = now() WHERE ctid IN ("
          + " SELECT ctid FROM inbox WHERE " + EXPIRED_OUTCOMES
          + " ORDER BY outcome_expires_at LIMIT ? FOR UPDATE SKIP LOCKED)";
  private static final String DELETE_KEYS =
      "DELETE FROM inbox WHERE ctid IN ("
          + " SELECT ctid FROM inbox WHERE " + EXPIRED_KEYS
          + " ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED)";
  private static final String DELETE_OUTBOX =
      "DELETE FROM outbox WHERE ctid IN ("
          + " SELECT ctid FROM outbox WHERE " + EXPIRED_OUTBOX
          + " ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)";
  private static final String PREVIEW =
      "SELECT (SELECT count(*) FROM inbox WHERE " + EXPIRED_OUTCOMES + "),"
          + " (SELECT count(*) FROM inbox WHERE " + EXPIRED_KEYS + "),"
          + " (SELECT count(*) FROM outbox WHERE " + EXPIRED_OUTBOX + ")";
  private static final String OLDEST_KEY_EXPIRY = "SELECT min(expires_at) FROM inbox";

  private final DataSource dataSource;
  private final RetentionPolicy policy;

  public RetentionCleaner(DataSource dataSource, RetentionPolicy policy) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  /** Runs the three phases once; each batch commits on its own. */
  public RetentionReport run() {
    long started = System.nanoTime();
    int[] batches = {0};
    long pruned = drain("pruning outcome bodies", PRUNE_OUTCOMES, false, batches);
    long keys = drain("deleting expired keys", DELETE_KEYS, false, batches);
    long outbox = drain("deleting published outbox rows", DELETE_OUTBOX, true, batches);
    boolean complete = batches[0] < policy.maxBatchesPerRun();
    RetentionReport report =
        new RetentionReport(
            pruned, keys, outbox, batches[0], Duration.ofNanos(System.nanoTime() - started),
            complete, oldestKeyExpiry());
    if (report.total() > 0) {
      log.info(
          "retention: {} outcome bodies pruned, {} keys deleted, {} outbox rows deleted in {} batches,"
              + " {} ms{}; oldest key expires {}",
          pruned, keys, outbox, report.batches(), report.took().toMillis(),
          complete ? "" : " (stopped at maxBatchesPerRun, more left)",
          report.oldestKeyExpiry().map(Object::toString).orElse("-"));
    } else {
      log.debug("retention: nothing expired");
    }
    return report;
  }

  /** Counts what {@link #run()} would remove now, changing nothing. */
  public RetentionPreview preview() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(PREVIEW)) {
      query.setDouble(1, policy.outboxKeep().toMillis() / 1000.0);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return new RetentionPreview(row.getLong(1), row.getLong(2), row.getLong(3));
      }
    } catch (SQLException e) {
      throw new RetentionException("previewing retention failed", e);
    }
  }

  private long drain(String phase, String sql, boolean outboxKeepParameter, int[] batches) {
    long total = 0;
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        int parameter = 1;
        if (outboxKeepParameter) {
          statement.setDouble(parameter++, policy.outboxKeep().toMillis() / 1000.0);
        }
        statement.setInt(parameter, policy.batchSize());
        while (batches[0] < policy.maxBatchesPerRun()) {
          int removed = statement.executeUpdate();
          batches[0]++;
          total += removed;
          if (removed < policy.batchSize()) {
            break;
          }
        }
      }
    } catch (SQLException e) {
      throw new RetentionException(phase + " failed after " + total + " rows", e);
    }
    return total;
  }

  private Optional<java.time.Instant> oldestKeyExpiry() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(OLDEST_KEY_EXPIRY);
        ResultSet row = query.executeQuery()) {
      row.next();
      Timestamp oldest = row.getTimestamp(1);
      return Optional.ofNullable(oldest).map(Timestamp::toInstant);
    } catch (SQLException e) {
      throw new RetentionException("reading the oldest key expiry failed", e);
    }
  }
}
