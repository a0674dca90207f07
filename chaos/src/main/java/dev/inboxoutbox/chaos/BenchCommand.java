package dev.inboxoutbox.chaos;

import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmark the inbox SQL, the inbox consumer and the relay; prints figures and ratios.",
      "1. Inbox SQL cost per key on one connection, empty and pre-filled inbox,",
      "   against the same state inserts without an inbox.",
      "2. Inbox consumer throughput against no inbox and a naive read-then-write",
      "   check.",
      "3. Relay commit-to-Kafka latency at a fixed rate."
    })
final class BenchCommand implements Callable<Integer> {
  @Option(
      names = "--messages",
      paramLabel = "COUNT",
      defaultValue = "20000",
      description =
          "Messages per consumer run in the consumer benchmark (default ${DEFAULT-VALUE}).")
  int messages;

  @Option(
      names = "--relay-events",
      paramLabel = "COUNT",
      defaultValue = "2000",
      description =
          "Outbox events per relay run, at the rate and as a burst (default ${DEFAULT-VALUE}).")
  int relayEvents;

  @Option(
      names = "--relay-rate",
      paramLabel = "PER_SECOND",
      defaultValue = "2000",
      description = "Outbox events per second, one transaction each (default ${DEFAULT-VALUE}).")
  int relayRate;

  @Option(
      names = "--sql-batches",
      paramLabel = "BATCHES",
      defaultValue = "50",
      description =
          "SQL micro-benchmark: batches of 200 keys per run, 3 runs after a warm-up"
              + " (default ${DEFAULT-VALUE}).")
  int sqlBatches;

  @Option(
      names = "--inbox-rows",
      paramLabel = "ROWS",
      defaultValue = "1000000",
      description =
          "SQL micro-benchmark: rows in the pre-filled inbox; 0 skips it"
              + " (default ${DEFAULT-VALUE}; 5000000 takes minutes to fill).")
  long inboxRows;

  @Option(
      names = "--inbox-fillfactor",
      paramLabel = "PERCENT",
      description =
          "SQL micro-benchmark: the inbox table's fillfactor (10-100); default: the schema's.")
  Integer inboxFillfactor;

  @Option(
      names = "--sql-only",
      description = "Run only the SQL micro-benchmark, not the consumers and the relay.")
  boolean sqlOnly;

  @Option(
      names = "--relay-poll-interval-ms",
      paramLabel = "MILLIS",
      defaultValue = "10",
      description =
          "The relay's Debezium poll.interval.ms (default ${DEFAULT-VALUE}, the relay's default).")
  long relayPollIntervalMs;

  @Option(
      names = "--repeat",
      paramLabel = "RUNS",
      defaultValue = "3",
      description = "Relay runs; the table shows the median and spread (default ${DEFAULT-VALUE}).")
  int repeat;

  @Option(names = "--relay-only", description = "Run only the relay benchmark.")
  boolean relayOnly;

  @Override
  public Integer call() throws Exception {
    if (sqlBatches < 1
        || inboxRows < 0
        || (inboxFillfactor != null && (inboxFillfactor < 10 || inboxFillfactor > 100))) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--sql-batches must be at least 1, --inbox-rows at least 0, --inbox-fillfactor 10-100");
    }
    new Bench(
            messages,
            relayEvents,
            relayRate,
            new Bench.SqlOptions(
                sqlBatches,
                inboxRows,
                inboxFillfactor == null
                    ? java.util.OptionalInt.empty()
                    : java.util.OptionalInt.of(inboxFillfactor),
                sqlOnly),
            Duration.ofMillis(relayPollIntervalMs),
            repeat,
            relayOnly,
            System.out)
        .run();
    return 0;
  }
}
