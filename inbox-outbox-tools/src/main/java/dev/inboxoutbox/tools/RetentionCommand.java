package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.DurationConverter;
import dev.inboxoutbox.retention.RetentionCleaner;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "retention",
    mixinStandardHelpOptions = true,
    description = "Show what a retention cleanup would remove (--dry-run), or run it once.")
public final class RetentionCommand implements Callable<Integer> {
  @CommandLine.Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(
      names = "--dry-run",
      description = "Only count what a cleanup would remove; change nothing.")
  boolean dryRun;

  @Option(
      names = "--batch-size",
      paramLabel = "ROWS",
      defaultValue = "1000",
      description = "Rows deleted per transaction (default ${DEFAULT-VALUE}).")
  int batchSize;

  @Option(
      names = "--outbox-keep",
      paramLabel = "DURATION",
      defaultValue = "7d",
      converter = DurationConverter.class,
      description =
          "How long published outbox rows are kept, e.g. 12h, 7d (default ${DEFAULT-VALUE}).")
  Duration outboxKeep;

  @Override
  public Integer call() {
    RetentionCleaner cleaner =
        RetentionCleaner.builder(db.dataSource())
            .batchSize(batchSize)
            .outboxKeep(outboxKeep)
            .build();
    if (dryRun) {
      RetentionCleaner.Preview preview = cleaner.preview();
      System.out.printf(
          "would prune %d outcome bodies, delete %d expired keys and %d published outbox rows%n"
              + "oldest key expiry %s, oldest published outbox row %s%n",
          preview.outcomesToPrune(),
          preview.keysToDelete(),
          preview.outboxRowsToDelete(),
          preview.oldestKeyExpiry().map(Object::toString).orElse("-"),
          preview.oldestPublishedOutboxRow().map(Object::toString).orElse("-"));
    } else {
      RetentionCleaner.Report report = cleaner.run();
      System.out.printf(
          "pruned %d outcome bodies, deleted %d keys and %d outbox rows in %d batches, %d ms%s%n",
          report.outcomesPruned(),
          report.keysDeleted(),
          report.outboxRowsDeleted(),
          report.batches(),
          report.took().toMillis(),
          report.complete() ? "" : " (stopped at the run budget with work left; run again)");
    }
    return 0;
  }
}
