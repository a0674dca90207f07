package dev.inboxoutbox.retention;

import dev.inboxoutbox.retention.RetentionCleaner.Backlog;
import dev.inboxoutbox.retention.RetentionCleaner.Report;
import dev.inboxoutbox.retention.RetentionCleaner.Step;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The line a run leaves in the log: INFO when it removed anything or ended behind, so a quiet
 * schedule does not fill the log, DEBUG otherwise.
 */
final class RunLog {

  // Under the cleaner's name, the class applications know, so their log levels for it still apply.
  private static final Logger log = LoggerFactory.getLogger(RetentionCleaner.class);

  private RunLog() {}

  /**
   * @param stopReason why the run stopped with work possibly left, null when it finished
   */
  static void write(Report report, String stopReason) {
    String stopped =
        stopReason == null ? "" : " (stopped early: " + stopReason + "; the next run continues)";
    if (report.rowsAffected() > 0 || stopReason != null) {
      log.info(
          "retention deleted {} expired keys, pruned {} outcome bodies, deleted {} published outbox"
              + " rows in {} batches, {} ms{}; overdue now: {}",
          report.keysDeleted(),
          report.outcomesPruned(),
          report.outboxRowsDeleted(),
          report.batches(),
          report.took().toMillis(),
          stopped,
          describe(report.backlog()));
    } else if (log.isDebugEnabled()) {
      log.debug(
          "retention found nothing expired in {} batches, {} ms; overdue now: {}",
          report.batches(),
          report.took().toMillis(),
          describe(report.backlog()));
    }
  }

  private static String describe(Map<Step, Backlog> backlog) {
    Instant now = Instant.now();
    StringBuilder text = new StringBuilder();
    for (Step step : Step.values()) {
      Backlog left = backlog.get(step);
      String description = step.description();
      text.append(text.isEmpty() ? "" : ", ")
          .append(description.substring(description.indexOf(' ') + 1))
          .append(' ')
          .append(left.overdueRows())
          .append(left.countCapped() ? "+" : "")
          .append(" (oldest ")
          .append(left.overdue(now).toSeconds())
          .append(" s past due)");
    }
    return text.toString();
  }
}
