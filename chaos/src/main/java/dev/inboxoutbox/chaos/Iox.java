package dev.inboxoutbox.chaos;

import dev.inboxoutbox.retention.RetentionCleaner;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code iox} command line. */
@Command(
    name = "iox",
    mixinStandardHelpOptions = true,
    version = "iox 0.1.0",
    description = "inbox-outbox: chaos runs, load, inspection and retention.",
    subcommands = {
      Iox.Chaos.class,
      Iox.Prepare.class,
      Iox.Produce.class,
      Iox.Inspect.class,
      Iox.Retention.class,
      ProviderCommand.class,
      Iox.BenchCommand.class
    })
public final class Iox implements Runnable {

  /**
   * The repository with the built services: the option, else IOX_REPO_ROOT, else the current
   * directory.
   */
  static Path repoRoot(Path option) {
    return option != null ? option : Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "."));
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new Iox()).execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  @Command(
      name = "chaos",
      mixinStandardHelpOptions = true,
      description = {
        "Kill consumers mid-flight and verify exactly-once effects (the main job).",
        "Starts PostgreSQL and Kafka (embedded unless IOX_JDBC_URL / IOX_KAFKA_BOOTSTRAP are set), runs",
        "order-consumer and payment-consumer processes, produces orders, SIGKILLs consumers and relay leaders,",
        "restarts them, waits for quiet and verifies. Exit code 1 on any violation, 2 on invalid options."
      })
  static final class Chaos implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--seed", description = "Random seed (default: random, printed).")
    Long seed;

    @Option(
        names = "--orders",
        defaultValue = "10000",
        description = "Distinct orders to send (default ${DEFAULT-VALUE}).")
    int orders;

    @Option(
        names = "--rate",
        defaultValue = "150",
        description = "Orders per second (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--order-instances", defaultValue = "2")
    int orderInstances;

    @Option(names = "--payment-instances", defaultValue = "2")
    int paymentInstances;

    @Option(
        names = "--kill-every-min",
        defaultValue = "1500ms",
        converter = DurationConverter.class)
    Duration killMin;

    @Option(
        names = "--kill-every-max",
        defaultValue = "3500ms",
        converter = DurationConverter.class)
    Duration killMax;

    @Option(
        names = "--min-kills",
        defaultValue = "20",
        description = "Keep killing until this many (default ${DEFAULT-VALUE}).")
    int minKills;

    @Option(names = "--restart-delay", defaultValue = "500ms", converter = DurationConverter.class)
    Duration restartDelay;

    @Option(
        names = "--crash-point-probability",
        defaultValue = "0.00005",
        description =
            "Chance per batch that a process halts at a named crash point (default ${DEFAULT-VALUE}).")
    double crashPoints;

    @Option(
        names = "--no-dedup",
        description =
            "Negative control: the services get a key extractor that makes every delivery look"
                + " new to the inbox, so repeats apply again; the verifier must then fail.")
    boolean noDedup;

    @Option(names = "--retry-share", defaultValue = "0.1")
    double retryShare;

    @Option(names = "--conflict-share", defaultValue = "0.02")
    double conflictShare;

    @Option(names = "--malformed-share", defaultValue = "0.01")
    double malformedShare;

    @Option(names = "--webhook-duplicate-share", defaultValue = "0.3")
    double webhookDuplicates;

    @Option(
        names = "--quiescence-timeout",
        defaultValue = "600s",
        converter = DurationConverter.class)
    Duration quiescence;

    @Option(
        names = "--reports",
        defaultValue = "iox-reports",
        description = "Report directory (default ${DEFAULT-VALUE}).")
    Path reports;

    @Option(
        names = "--repo",
        description =
            "Repository root with the built services (default: current directory or IOX_REPO_ROOT).")
    Path repo;

    @Override
    public Integer call() throws Exception {
      long chosenSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
      Path root = repoRoot(repo);
      ChaosOptions options;
      try {
        options =
            new ChaosOptions(
                chosenSeed,
                orders,
                rate,
                orderInstances,
                paymentInstances,
                killMin,
                killMax,
                minKills,
                restartDelay,
                crashPoints,
                !noDedup,
                retryShare,
                conflictShare,
                malformedShare,
                webhookDuplicates,
                quiescence,
                root.toAbsolutePath().normalize(),
                reports.toAbsolutePath());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      return new ChaosRun(options, System.out).run() ? 0 : 1;
    }
  }

  @Command(
      name = "prepare",
      mixinStandardHelpOptions = true,
      description = {
        "Train the services' class-data (AppCDS) archives, once per build.",
        "Extracts the built service jars and starts each once against a throwaway stack, so service processes",
        "start in about 2 s instead of 5. ./iox runs it before a chaos run that lacks the archives, and a",
        "chaos run retrains stale ones itself."
      })
  static final class Prepare implements Callable<Integer> {
    @Option(
        names = "--repo",
        description =
            "Repository root with the built services (default: current directory or IOX_REPO_ROOT).")
    Path repo;

    @Option(
        names = "--reports",
        defaultValue = "iox-reports",
        description = "Where the training logs go (default ${DEFAULT-VALUE}).")
    Path reports;

    @Override
    public Integer call() throws Exception {
      Path root = repoRoot(repo).toAbsolutePath().normalize();
      return ServiceLaunch.prepareFastStart(root, reports.toAbsolutePath(), System.out) ? 0 : 1;
    }
  }

  @Command(
      name = "produce",
      mixinStandardHelpOptions = true,
      description =
          "Send PlaceOrder commands to orders.commands with client retries, conflicts and malformed records.")
  static final class Produce implements Callable<Integer> {
    @Option(names = "--bootstrap", defaultValue = "${env:IOX_KAFKA_BOOTSTRAP:-localhost:19092}")
    String bootstrap;

    @Option(names = "--count", defaultValue = "100")
    int count;

    @Option(
        names = "--rate",
        defaultValue = "50",
        description = "Orders per second; 0 = as fast as possible.")
    int rate;

    @Option(names = "--retry-share", defaultValue = "0.1")
    double retryShare;

    @Option(names = "--conflict-share", defaultValue = "0.02")
    double conflictShare;

    @Option(names = "--malformed-share", defaultValue = "0.01")
    double malformedShare;

    @Option(names = "--seed", defaultValue = "1")
    long seed;

    @Override
    public Integer call() throws Exception {
      try (LoadProducer load =
          new LoadProducer(bootstrap, seed, retryShare, conflictShare, malformedShare)) {
        load.send(count, rate);
        System.out.println(
            "sent to " + LoadProducer.TOPIC + " on " + bootstrap + ": " + load.sent().summary());
      }
      return 0;
    }
  }

  /** Connection options shared by inspect and retention. */
  static class Db {
    @Option(
        names = "--jdbc-url",
        defaultValue = "${env:IOX_JDBC_URL:-jdbc:postgresql://localhost:15432/order_consumer}",
        description = "Database to read (default ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--user", defaultValue = "${env:IOX_JDBC_USER:-postgres}")
    String user;

    @Option(names = "--password", defaultValue = "${env:IOX_JDBC_PASSWORD:-}")
    String password;

    Connection connect() throws SQLException {
      Properties p = new Properties();
      p.setProperty("user", user);
      p.setProperty("password", password);
      return DriverManager.getConnection(url, p);
    }

    PGSimpleDataSource dataSource() {
      PGSimpleDataSource dataSource = new PGSimpleDataSource();
      dataSource.setUrl(url);
      dataSource.setUser(user);
      dataSource.setPassword(password);
      return dataSource;
    }
  }

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description =
          "Inbox and outbox tables: counts by scope and status, latest rows, a key traced across services, relay lag.")
  static final class Inspect implements Callable<Integer> {
    @CommandLine.Mixin Db db = new Db();

    @Option(
        names = "--key",
        description =
            "Trace one idempotency key: its inbox rows, the outbox events it caused, and their downstream inbox rows.")
    String key;

    @Option(
        names = "--downstream-jdbc-url",
        description = "Database of the next service, for --key.")
    String downstream;

    @Option(names = "--latest", defaultValue = "10")
    int latest;

    @Override
    public Integer call() throws SQLException {
      try (Connection c = db.connect()) {
        print(
            c,
            "inbox by scope and status",
            "SELECT tenant, principal, operation, status, count(*) AS keys FROM inbox GROUP BY 1, 2, 3, 4 ORDER BY 3, 4");
        print(
            c,
            "outbox by aggregate type and type",
            "SELECT aggregatetype, type, count(*) AS events, count(*) FILTER (WHERE published_at IS NULL) AS unpublished"
                + " FROM outbox GROUP BY 1, 2 ORDER BY 1, 2");
        print(
            c,
            "latest inbox rows",
            "SELECT operation, idempotency_key, status, outcome_code, left(outcome_body::text, 60) AS outcome, created_at"
                + " FROM inbox ORDER BY created_at DESC LIMIT "
                + latest);
        print(
            c,
            "latest outbox rows",
            "SELECT id, aggregatetype, aggregateid, type, causation_id, created_at, published_at FROM outbox"
                + " ORDER BY created_at DESC LIMIT "
                + latest);
        print(
            c,
            "relay lag",
            "SELECT slot_name, active, pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn) AS lag_bytes,"
                + " (SELECT count(*) FROM outbox WHERE published_at IS NULL) AS unpublished_rows,"
                + " (SELECT now() - min(created_at) FROM outbox WHERE published_at IS NULL) AS oldest_unpublished"
                + " FROM pg_replication_slots WHERE database = current_database()");
        if (key != null) {
          print(
              c,
              "inbox rows for key " + key,
              "SELECT operation, status, request_hash, outcome_code, outcome_body, created_at, expires_at FROM inbox WHERE idempotency_key = ?",
              key);
          print(
              c,
              "outbox events caused by " + key,
              "SELECT id, aggregatetype, aggregateid, type, published_at FROM outbox WHERE causation_id = ?",
              key);
          if (downstream != null) {
            Db next = new Db();
            next.url = downstream;
            next.user = db.user;
            next.password = db.password;
            try (Connection d = next.connect();
                PreparedStatement ids =
                    c.prepareStatement("SELECT id::text FROM outbox WHERE causation_id = ?")) {
              ids.setString(1, key);
              try (ResultSet rows = ids.executeQuery()) {
                while (rows.next()) {
                  String eventId = rows.getString(1);
                  print(
                      d,
                      "downstream inbox for event " + eventId,
                      "SELECT operation, status, outcome_body, created_at FROM inbox WHERE idempotency_key = ?",
                      eventId);
                  print(
                      d,
                      "downstream outbox caused by event " + eventId,
                      "SELECT id, aggregatetype, type, published_at FROM outbox WHERE causation_id = ?",
                      eventId);
                }
              }
            }
          }
        }
      }
      return 0;
    }
  }

  @Command(
      name = "retention",
      mixinStandardHelpOptions = true,
      description = "Show what a retention cleanup would remove (--dry-run), or run it once.")
  static final class Retention implements Callable<Integer> {
    @CommandLine.Mixin Db db = new Db();

    @Option(names = "--dry-run", description = "Only count.")
    boolean dryRun;

    @Option(names = "--batch-size", defaultValue = "1000")
    int batchSize;

    @Option(names = "--outbox-keep", defaultValue = "7d", converter = DurationConverter.class)
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
            report.complete() ? "" : " (stopped at the batch limit; run again)");
      }
      return 0;
    }
  }

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
  static final class BenchCommand implements Callable<Integer> {
    @Option(names = "--messages", defaultValue = "20000")
    int messages;

    @Option(
        names = "--relay-events",
        defaultValue = "2000",
        description =
            "Outbox events per relay run, at the rate and as a burst (default ${DEFAULT-VALUE}).")
    int relayEvents;

    @Option(
        names = "--relay-rate",
        defaultValue = "2000",
        description = "Outbox events per second, one transaction each (default ${DEFAULT-VALUE}).")
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
            "Relay runs; the table shows the median and spread (default ${DEFAULT-VALUE}).")
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

  private static void print(Connection connection, String title, String sql, String... parameters)
      throws SQLException {
    System.out.println("== " + title);
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        ResultSetMetaData meta = rows.getMetaData();
        StringBuilder header = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          header.append(String.format("%-24s", meta.getColumnLabel(i)));
        }
        System.out.println(header.toString().stripTrailing());
        int n = 0;
        while (rows.next()) {
          StringBuilder line = new StringBuilder();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            line.append(String.format("%-24s", String.valueOf(rows.getObject(i))));
          }
          System.out.println(line.toString().stripTrailing());
          n++;
        }
        if (n == 0) {
          System.out.println("(none)");
        }
      }
    }
    System.out.println();
  }

  /** Reads 500ms, 2s, 3m, 7d. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase();
      CommandLine.TypeConversionException invalid =
          new CommandLine.TypeConversionException(
              "not a duration: '" + value + "' (use 500ms, 2s, 3m, 1h, 7d)");
      if (v.isEmpty()) {
        throw invalid;
      }
      try {
        if (v.endsWith("ms")) {
          return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        long amount = Long.parseLong(v.substring(0, Math.max(0, v.length() - 1)));
        switch (v.charAt(v.length() - 1)) {
          case 's':
            return Duration.ofSeconds(amount);
          case 'm':
            return Duration.ofMinutes(amount);
          case 'h':
            return Duration.ofHours(amount);
          case 'd':
            return Duration.ofDays(amount);
          default:
            throw invalid;
        }
      } catch (NumberFormatException | ArithmeticException e) {
        throw invalid;
      }
    }
  }
}
