package dev.inboxoutbox.benchmarks;

import dev.inboxoutbox.cli.BenchFigures;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.MachineLoad;
import dev.inboxoutbox.devstack.connect.BuiltConnector;
import dev.inboxoutbox.schema.InboxOutboxSchema;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One {@code iox bench} run: the inbox SQL micro-benchmark, the consumer throughput and the relay,
 * each part adding its figures to the run's one {@link BenchFigures}; the table is printed once at
 * the end with the machine line, and written as JSON when asked. Never part of the tests'
 * pass/fail.
 */
public final class Bench {

  private final DevStackSettings stackSettings;
  private final int messages;
  private final int relayEvents;
  private final int relayRate;
  private final SqlOptions sql;
  private final Duration relayPollInterval;
  private final int repeat;
  private final boolean relayOnly;
  private final boolean skipConnect;
  private final boolean consumerOnly;
  private final Optional<Path> json;
  private final RetentionOptions retention;
  private final PrintStream out;

  /** The SQL micro-benchmark's options; {@code only} skips the consumer and relay figures. */
  record SqlOptions(int batchesPerRun, long inboxRows, OptionalInt fillfactor, boolean only) {}

  /** The retention benchmark's options: {@code only} runs nothing else, {@code skip} not it. */
  record RetentionOptions(
      long expiredKeys,
      Duration pause,
      int messages,
      Optional<RetentionBench.Intake> intake,
      boolean only,
      boolean skip) {}

  Bench(
      DevStackSettings stackSettings,
      int messages,
      int relayEvents,
      int relayRate,
      SqlOptions sql,
      Duration relayPollInterval,
      int repeat,
      boolean relayOnly,
      boolean skipConnect,
      boolean consumerOnly,
      Optional<Path> json,
      RetentionOptions retention,
      PrintStream out) {
    this.stackSettings = stackSettings;
    this.messages = messages;
    this.relayEvents = relayEvents;
    this.relayRate = relayRate;
    this.sql = sql;
    this.relayPollInterval = relayPollInterval;
    this.repeat = repeat;
    this.relayOnly = relayOnly;
    this.skipConnect = skipConnect;
    this.consumerOnly = consumerOnly;
    this.json = json;
    this.retention = retention;
    this.out = out;
  }

  void run() throws Exception {
    // Before anything runs: a missing build would otherwise fail the relay part after the others.
    Optional<BuiltConnector> connect =
        retention.only() || sql.only() || consumerOnly || skipConnect
            ? Optional.empty()
            : Optional.of(ConnectArm.sources(ConnectArm.repoRoot()));
    BenchFigures figures = new BenchFigures();
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    Exception failure = null;
    try (DevStack stack = DevStack.start(stackSettings)) {
      if (retention.only()) {
        retention(stack, figures);
      } else {
        if (!relayOnly && !consumerOnly) {
          new InboxSqlBench(
                  stack,
                  sql.batchesPerRun(),
                  sql.inboxRows(),
                  sql.fillfactor(),
                  repeat,
                  figures,
                  out)
              .run();
        }
        if (!sql.only()) {
          consumersAndRelay(stack, connect, figures);
        }
        if (!retention.skip() && !sql.only() && !relayOnly && !consumerOnly) {
          retention(stack, figures);
        }
      }
    } catch (Exception e) {
      // The parts and runs that completed keep their figures: printed and written as usual, with
      // the failure as a note, before the failure ends the command.
      failure = e;
      figures.note("INCOMPLETE: " + e.getMessage());
    }
    MachineLoad.since(cpuAtStart).ifPresent(load -> figures.note(load.describe()));
    out.println();
    figures.printTable(out);
    if (json.isPresent()) {
      write(json.get(), figures);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void retention(DevStack stack, BenchFigures figures) throws Exception {
    new RetentionBench(
            stack,
            retention.expiredKeys(),
            retention.pause(),
            retention.messages(),
            repeat,
            retention.intake(),
            figures,
            out)
        .run();
  }

  private void consumersAndRelay(
      DevStack stack, Optional<BuiltConnector> connect, BenchFigures figures) throws Exception {
    try (Database db = stack.postgres().createDatabase();
        // The Kafka Connect arm's own database on the same server: its slot and stored offsets
        // never meet the embedded relay's.
        Database connectDb = connect.isPresent() ? stack.postgres().createDatabase() : null) {
      InboxOutboxSchema.migrate(db.dataSource());
      if (connectDb != null) {
        InboxOutboxSchema.migrate(connectDb.dataSource());
      }
      String bootstrap = stack.kafka().bootstrapServers();
      if (!relayOnly) {
        new ConsumerBench(db, bootstrap, messages, repeat, figures, out).run();
      }
      if (!consumerOnly) {
        new RelayBench(
                figures,
                db,
                bootstrap,
                relayEvents,
                relayRate,
                relayPollInterval,
                repeat,
                connect.map(sources -> new ConnectArm.Target(sources, connectDb)),
                out)
            .run();
      }
    }
  }

  private void write(Path path, BenchFigures figures) throws IOException {
    Files.writeString(path, figures.toJson());
    out.println("figures written to " + path);
  }
}
