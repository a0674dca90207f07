package dev.inboxoutbox.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmark the inbox SQL, the inbox consumer and the relay; prints one table of",
      "figures (median and spread of --repeat runs, ratio to a baseline measured in the",
      "same run, target) with the machine line, and writes it as JSON with --json.",
      "1. Inbox SQL cost per key on one connection, empty and pre-filled inbox,",
      "   against the same state inserts without an inbox.",
      "2. Inbox consumer throughput against no inbox (same handler) at 1 partition /",
      "   1 thread and 3 partitions / 3 threads, and a naive read-then-write check.",
      "3. Relay commit-to-Kafka latency at a fixed rate, and throughput draining",
      "   a backlog against a plain KafkaProducer, split by stage."
    })
final class BenchCommand implements Callable<Integer> {
  @Option(
      names = "--messages",
      defaultValue = "20000",
      description = "Records per consumer run (default ${DEFAULT-VALUE}).")
  int messages;

  @Option(
      names = "--relay-events",
      defaultValue = "2000",
      description =
          "Outbox events per relay run, at the rate, as a burst and as a backlog"
              + " (default ${DEFAULT-VALUE}).")
  int relayEvents;

  @Option(
      names = "--relay-rate",
      defaultValue = "2000",
      description =
          "Outbox events per second, one transaction each, from 4 connections"
              + " (default ${DEFAULT-VALUE}).")
  int relayRate;

  @Option(
      names = "--sql-batches",
      defaultValue = "50",
      description =
          "SQL micro-benchmark: batches of 200 keys per run, 3 runs after a warm-up"
              + " (default ${DEFAULT-VALUE}).")
  int sqlBatches;

  @Option(
      names = "--inbox-rows",
      defaultValue = "1000000",
      description =
          "SQL micro-benchmark: rows in the pre-filled inbox; 0 skips it"
              + " (default ${DEFAULT-VALUE}; 5000000 takes minutes to fill).")
  long inboxRows;

  @Option(
      names = "--inbox-fillfactor",
      description =
          "SQL micro-benchmark: the inbox table's fillfactor (10-100); default: the schema's.")
  Integer inboxFillfactor;

  @Option(
      names = "--sql-only",
      description = "Run only the SQL micro-benchmark, not the consumers and the relay.")
  boolean sqlOnly;

  @Option(
      names = "--relay-poll-interval-ms",
      defaultValue = "10",
      description =
          "The relay's Debezium poll.interval.ms (default ${DEFAULT-VALUE}, the relay's default).")
  long relayPollIntervalMs;

  @Option(
      names = "--repeat",
      defaultValue = "3",
      description =
          "Measured runs of every figure, after a warm-up run; the table shows the median and"
              + " spread (default ${DEFAULT-VALUE}).")
  int repeat;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "Also write the figures and notes as JSON to FILE.")
  Path json;

  @Option(names = "--relay-only", description = "Run only the relay benchmark.")
  boolean relayOnly;

  @Override
  public Integer call() throws Exception {
    if (sqlBatches < 1
        || repeat < 1
        || inboxRows < 0
        || (inboxFillfactor != null && (inboxFillfactor < 10 || inboxFillfactor > 100))) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--sql-batches and --repeat must be at least 1, --inbox-rows at least 0,"
              + " --inbox-fillfactor 10-100");
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
            Optional.ofNullable(json),
            System.out)
        .run();
    return 0;
  }
}
