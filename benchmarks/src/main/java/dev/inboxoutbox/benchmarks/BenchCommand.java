package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.DurationConverter;
import dev.inboxoutbox.devstack.DevStackSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmark the inbox SQL, the inbox consumer and the relay against baselines.",
      "Prints one table of figures (median and spread of --repeat runs, ratio to a baseline",
      "measured in the same run, target) with the machine line; --json writes it as JSON.",
      "1. Inbox SQL cost per key on one connection, empty and pre-filled inbox,",
      "   against the same state inserts without an inbox.",
      "2. Inbox consumer throughput against no inbox (same handler) at 1 partition /",
      "   1 thread, 3 partitions / 3 threads and with the writes batched (one",
      "   statement per batch), split by stage; a naive read-then-write check.",
      "3. Relay commit-to-Kafka latency at a fixed rate, and throughput draining",
      "   a backlog against a plain KafkaProducer and against a Kafka Connect worker",
      "   running the outbox connector (built by inbox-outbox-connect), split by stage.",
      "4. Retention: the inbox consumer while a cleanup deletes expired keys,",
      "   and a sustained intake of distinct keys with a one-second TTL."
    })
public final class BenchCommand implements Callable<Integer> {

  /**
   * About 54 bytes a key in the inbox's digest index, as much again for the least claim's table
   * beside it: 10,000,000 keys of each fit with room to spare (docs/inbox.md, "Memory for a large
   * inbox").
   */
  static final String DEFAULT_SHARED_BUFFERS = "2GB";

  @Option(
      names = "--messages",
      paramLabel = "COUNT",
      defaultValue = "100000",
      description = "Records per consumer run (default ${DEFAULT-VALUE}).")
  int messages;

  @Option(
      names = "--relay-events",
      paramLabel = "COUNT",
      // 2,000 drained in a tenth of a second, and one more or one fewer poll of the Connect
      // worker's task swung its figure fourfold; 20,000 take a second and hold still.
      defaultValue = "20000",
      description =
          "Outbox events per relay run, at the rate, as a burst and as a backlog"
              + " (default ${DEFAULT-VALUE}).")
  int relayEvents;

  @Option(
      names = "--relay-rate",
      paramLabel = "PER_SECOND",
      defaultValue = "2000",
      description =
          "Outbox events per second, one transaction each, from 4 connections"
              + " (default ${DEFAULT-VALUE}).")
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
      defaultValue = "10000000",
      description =
          "SQL micro-benchmark: rows in the pre-filled inbox; 0 skips it"
              + " (default ${DEFAULT-VALUE}, 3 to 5 minutes to fill on 2 cores).")
  long inboxRows;

  @Option(
      names = "--shared-buffers",
      paramLabel = "SIZE",
      description =
          "shared_buffers of the embedded PostgreSQL the bench starts, sized so that the"
              + " pre-filled inbox's key index fits (default "
              + DEFAULT_SHARED_BUFFERS
              + ", or IOX_POSTGRES_SHARED_BUFFERS); a server given by IOX_JDBC_URL keeps its own.")
  String sharedBuffers;

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
      defaultValue = "25",
      description =
          "The relay's Debezium poll.interval.ms (default ${DEFAULT-VALUE}, the relay's default).")
  long relayPollIntervalMs;

  @Option(
      names = "--repeat",
      paramLabel = "RUNS",
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

  @Option(
      names = "--skip-connect",
      description =
          "Leave out the relay's Kafka Connect arm (a Connect worker running the outbox connector"
              + " on the same backlog), e.g. where inbox-outbox-connect is not built.")
  boolean skipConnect;

  @Option(names = "--consumer-only", description = "Run only the consumer benchmark.")
  boolean consumerOnly;

  @Option(names = "--retention-only", description = "Run only the retention benchmark.")
  boolean retentionOnly;

  @Option(names = "--skip-retention", description = "Leave the retention benchmark out.")
  boolean skipRetention;

  @Option(
      names = "--retention-expired-keys",
      paramLabel = "COUNT",
      defaultValue = "1000000",
      description =
          "Expired keys the cleanup deletes beside the consumer; 0 skips that part"
              + " (default ${DEFAULT-VALUE}).")
  long retentionExpiredKeys;

  @Option(
      names = "--retention-pause",
      paramLabel = "DURATION",
      defaultValue = "10ms",
      converter = DurationConverter.class,
      description =
          "The cleanup's pause between batches beside the consumer; 0s lets it take all it can"
              + " (default ${DEFAULT-VALUE}).")
  Duration retentionPause;

  @Option(
      names = "--retention-messages",
      paramLabel = "COUNT",
      defaultValue = "200000",
      description =
          "Records produced for the consumer beside the cleanup; enough to outlast it"
              + " (default ${DEFAULT-VALUE}).")
  int retentionMessages;

  @Option(
      names = "--retention-intake-rate",
      paramLabel = "PER_SECOND",
      defaultValue = "11000",
      description = "Sustained intake, distinct keys per second (default ${DEFAULT-VALUE}).")
  int retentionIntakeRate;

  @Option(
      names = "--retention-intake-connections",
      paramLabel = "COUNT",
      defaultValue = "4",
      description = "Sustained intake, claiming connections (default ${DEFAULT-VALUE}).")
  int retentionIntakeConnections;

  @Option(
      names = "--retention-intake-duration",
      paramLabel = "DURATION",
      defaultValue = "40s",
      converter = DurationConverter.class,
      description =
          "Sustained intake duration, e.g. 5m for a long run; 0s skips it"
              + " (default ${DEFAULT-VALUE}).")
  Duration retentionIntakeDuration;

  @Option(
      names = "--retention-interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description = "Sustained intake: the cleanup schedule's interval (default ${DEFAULT-VALUE}).")
  Duration retentionInterval;

  private Bench.RetentionOptions retentionOptions() {
    if (retentionExpiredKeys < 0
        || retentionPause.isNegative()
        || retentionMessages < 10_000
        || retentionIntakeRate < 1
        || retentionIntakeConnections < 1
        || retentionIntakeDuration.isNegative()
        || retentionInterval.isNegative()
        || retentionInterval.isZero()) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "--retention-expired-keys must be at least 0, --retention-pause not negative,"
              + " --retention-messages at least 10000,"
              + " --retention-intake-rate and --retention-intake-connections at least 1,"
              + " --retention-intake-duration not negative, --retention-interval positive");
    }
    return new Bench.RetentionOptions(
        retentionExpiredKeys,
        retentionPause,
        retentionMessages,
        retentionIntakeDuration.isZero()
            ? java.util.Optional.empty()
            : java.util.Optional.of(
                new RetentionBench.Intake(
                    retentionIntakeRate,
                    retentionIntakeConnections,
                    retentionIntakeDuration,
                    retentionInterval)),
        retentionOnly,
        skipRetention);
  }

  /**
   * The environment's dev stack settings; an embedded server gets {@code --shared-buffers}, or the
   * environment's size, or {@link #DEFAULT_SHARED_BUFFERS}.
   */
  DevStackSettings stackSettings(Supplier<DevStackSettings> environment) {
    DevStackSettings settings;
    try {
      settings = environment.get();
      if (sharedBuffers != null) {
        DevStackSettings.requireMemorySize("--shared-buffers", sharedBuffers);
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    if (settings.postgresMode() != DevStackSettings.PostgresMode.EMBEDDED) {
      if (sharedBuffers != null) {
        throw new CommandLine.ParameterException(
            new CommandLine(this),
            "--shared-buffers sizes the embedded server the bench starts; with iox.postgres="
                + settings.postgresMode().name().toLowerCase(java.util.Locale.ROOT)
                + " it does not apply");
      }
      return settings;
    }
    return settings.withPostgresSharedBuffers(
        sharedBuffers != null
            ? sharedBuffers
            : settings.postgresSharedBuffers().orElse(DEFAULT_SHARED_BUFFERS));
  }

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
    if (Stream.of(sqlOnly, relayOnly, consumerOnly, retentionOnly).filter(only -> only).count()
        > 1) {
      throw new CommandLine.ParameterException(
          new CommandLine(this),
          "choose at most one of --sql-only, --relay-only, --consumer-only, --retention-only");
    }
    DevStackSettings stack = stackSettings(DevStackSettings::fromEnvironment);
    new Bench(
            stack,
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
            skipConnect,
            consumerOnly,
            Optional.ofNullable(json),
            retentionOptions(),
            System.out)
        .run();
    return 0;
  }
}
