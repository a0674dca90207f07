package dev.inboxoutbox.tools;

import dev.inboxoutbox.cli.DurationConverter;
import dev.inboxoutbox.consumer.DeadLetterReason;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.json.JsonMapper;

/** {@code iox dlt}: look at dead letters and send chosen ones back to their original topic. */
@Command(
    name = "dlt",
    mixinStandardHelpOptions = true,
    description = {
      "Dead letters: list them, show one in full, re-drive chosen ones to their original topic.",
      "A dead-letter topic is <topic>.DLT (the consumer's dead-letter suffix). Reading commits no"
          + " offsets. Exit code 1 when a selected record cannot be re-driven, 2 on a usage or"
          + " connection error."
    },
    subcommands = {
      DltCommand.ListDeadLetters.class,
      DltCommand.Show.class,
      DltCommand.Redrive.class
    })
public final class DltCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** Where the dead letters are, shared by the subcommands. */
  static final class Source {
    @Option(
        names = "--bootstrap",
        paramLabel = "HOST:PORT",
        defaultValue = "${env:IOX_KAFKA_BOOTSTRAP:-localhost:19092}",
        description =
            "Kafka bootstrap servers, else IOX_KAFKA_BOOTSTRAP (default ${DEFAULT-VALUE}).")
    String bootstrap;

    @Parameters(
        index = "0",
        paramLabel = "DLT_TOPIC",
        description = "The dead-letter topic, e.g. orders.commands.DLT.")
    String topic;

    DeadLetterTopic deadLetterTopic() {
      return new DeadLetterTopic(bootstrap, topic);
    }
  }

  /** Which dead letters, shared by list and redrive. */
  static final class Filter {
    @Option(
        names = "--reason",
        paramLabel = "REASON",
        split = ",",
        description =
            "Only these reasons, comma-separated: ${COMPLETION-CANDIDATES} (default: every reason).")
    Set<DeadLetterReason> reasons = Set.of();

    @Option(
        names = "--newer-than",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description =
            "Only dead letters written within this long, e.g. 30m, 2h (default: any age).")
    Duration newerThan;

    @Option(
        names = "--older-than",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description = "Only dead letters written longer ago than this, e.g. 1h (default: any age).")
    Duration olderThan;

    Predicate<DeadLetter> matching(Instant now) {
      return deadLetter ->
          (reasons.isEmpty()
                  || reasons.stream().anyMatch(r -> r.name().equals(deadLetter.reason())))
              && (newerThan == null || deadLetter.age(now).compareTo(newerThan) <= 0)
              && (olderThan == null || deadLetter.age(now).compareTo(olderThan) > 0);
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "One line per dead letter: position in the dead-letter topic, age, reason, idempotency key,"
              + " original topic-partition@offset, detail.")
  static final class ListDeadLetters implements Callable<Integer> {
    @CommandLine.Mixin Source source = new Source();
    @CommandLine.Mixin Filter filter = new Filter();

    @Option(names = "--json", description = "One JSON array for scripts instead of the table.")
    boolean json;

    @Override
    public Integer call() {
      Instant now = Instant.now();
      List<DeadLetter> found = source.deadLetterTopic().read(filter.matching(now));
      if (json) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (DeadLetter deadLetter : found) {
          rows.add(summary(deadLetter));
        }
        System.out.println(JsonMapper.builder().build().writeValueAsString(rows));
        return 0;
      }
      System.out.println(found.size() + " dead letters in " + source.topic);
      TextTable table =
          new TextTable(List.of("POSITION", "AGE", "REASON", "KEY", "ORIGINAL", "DETAIL"));
      for (DeadLetter deadLetter : found) {
        table.add(
            List.of(
                deadLetter.position(),
                age(deadLetter.age(now)),
                String.valueOf(deadLetter.reason()),
                String.valueOf(deadLetter.idempotencyKey()),
                deadLetter.originalPosition(),
                String.valueOf(deadLetter.detail())));
      }
      if (!found.isEmpty()) {
        table.print(System.out);
      }
      return 0;
    }
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "One dead letter in full: position, record key, every header, the value.")
  static final class Show implements Callable<Integer> {
    @CommandLine.Mixin Source source = new Source();

    @Parameters(
        index = "1",
        paramLabel = "PARTITION@OFFSET",
        description = "The dead letter's position, as list prints it, e.g. 0@12.")
    String position;

    @Option(names = "--json", description = "One JSON object for scripts instead of the text.")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      long[] at = parsePosition(spec, position);
      DeadLetter deadLetter =
          source
              .deadLetterTopic()
              .at((int) at[0], at[1])
              .orElseThrow(
                  () ->
                      new CommandLine.ParameterException(
                          spec.commandLine(), "no record at " + position + " in " + source.topic));
      if (json) {
        Map<String, Object> full = summary(deadLetter);
        full.put("recordKey", deadLetter.record().key());
        full.put("headers", deadLetter.headersAsText());
        full.put("value", deadLetter.valueAsText());
        System.out.println(JsonMapper.builder().build().writeValueAsString(full));
        return 0;
      }
      PrintStream out = System.out;
      out.println("position      " + source.topic + " " + deadLetter.position());
      out.println("written       " + deadLetter.deadLetteredAt());
      out.println("reason        " + deadLetter.reason());
      out.println("detail        " + deadLetter.detail());
      out.println("original      " + deadLetter.originalPosition());
      out.println("record key    " + deadLetter.record().key());
      out.println("headers");
      deadLetter.headersAsText().forEach((name, value) -> out.println("  " + name + ": " + value));
      out.println("value");
      out.println(
          deadLetter.valueOmitted()
              ? "  (left out: too large for the dead-letter topic; read it at "
                  + deadLetter.originalPosition()
                  + ")"
              : "  " + deadLetter.valueAsText());
      return 0;
    }
  }

  @Command(
      name = "redrive",
      mixinStandardHelpOptions = true,
      description = {
        "Send chosen dead letters back to their original topic with their original record key, value"
            + " and headers (plus iox-redriven-from naming the dead letter).",
        "Choose by --at, or by --reason/--newer-than/--older-than, or --all. The dead letters stay"
            + " where they are. Re-driving one twice sends it twice; the consumer's inbox absorbs"
            + " the second copy (same idempotency key and payload), as it absorbs the re-drive of a"
            + " record that was applied after all."
      })
  static final class Redrive implements Callable<Integer> {
    @CommandLine.Mixin Source source = new Source();
    @CommandLine.Mixin Filter filter = new Filter();

    @Option(
        names = "--at",
        paramLabel = "PARTITION@OFFSET",
        split = ",",
        description =
            "Only the dead letters at these positions, as list prints them (default: none).")
    List<String> positions = List.of();

    @Option(
        names = "--all",
        description = "Re-drive every dead letter the filters select, even with no filter given.")
    boolean all;

    @Option(names = "--dry-run", description = "Print what would be re-driven; send nothing.")
    boolean dryRun;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      boolean filtered =
          !filter.reasons.isEmpty() || filter.newerThan != null || filter.olderThan != null;
      if (positions.isEmpty() && !filtered && !all) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "choose what to re-drive: --at, --reason, --newer-than, --older-than, or --all");
      }
      List<long[]> at = new ArrayList<>();
      for (String position : positions) {
        at.add(parsePosition(spec, position));
      }
      Predicate<DeadLetter> chosen =
          filter
              .matching(Instant.now())
              .and(
                  deadLetter ->
                      at.isEmpty()
                          || at.stream()
                              .anyMatch(
                                  p ->
                                      p[0] == deadLetter.record().partition()
                                          && p[1] == deadLetter.record().offset()));
      List<DeadLetter> selected = source.deadLetterTopic().read(chosen);
      List<DeadLetter> redrivable = new ArrayList<>();
      int refused = 0;
      for (DeadLetter deadLetter : selected) {
        if (deadLetter.valueOmitted() || deadLetter.originalTopic() == null) {
          refused++;
          System.out.println(
              "not re-driven: "
                  + deadLetter.position()
                  + (deadLetter.originalTopic() == null
                      ? " has no original topic header"
                      : " has no value (too large for the dead-letter topic); the original is at "
                          + deadLetter.originalPosition()));
        } else {
          redrivable.add(deadLetter);
        }
      }
      if (positions.size() > selected.size()) {
        refused += positions.size() - selected.size();
        System.out.println(
            "not found: " + (positions.size() - selected.size()) + " of the --at positions");
      }
      if (dryRun) {
        for (DeadLetter deadLetter : redrivable) {
          System.out.println(
              "would re-drive "
                  + deadLetter.position()
                  + " ("
                  + deadLetter.reason()
                  + ", key "
                  + deadLetter.idempotencyKey()
                  + ") to "
                  + deadLetter.originalTopic());
        }
        return refused == 0 ? 0 : 1;
      }
      List<RecordMetadata> sent = source.deadLetterTopic().redrive(redrivable);
      for (int i = 0; i < sent.size(); i++) {
        System.out.println(
            "re-drove "
                + redrivable.get(i).position()
                + " ("
                + redrivable.get(i).reason()
                + ", key "
                + redrivable.get(i).idempotencyKey()
                + ") to "
                + sent.get(i).topic()
                + "-"
                + sent.get(i).partition()
                + "@"
                + sent.get(i).offset());
      }
      System.out.println(
          "re-drove " + sent.size() + " of " + (sent.size() + refused) + " selected dead letters");
      return refused == 0 ? 0 : 1;
    }
  }

  /** Reads {@code <partition>@<offset>}; anything else is a usage error. */
  static long[] parsePosition(CommandLine.Model.CommandSpec spec, String position) {
    String[] parts = position.trim().split("@");
    try {
      if (parts.length == 2) {
        long partition = Integer.parseInt(parts[0]);
        long offset = Long.parseLong(parts[1]);
        if (partition >= 0 && offset >= 0) {
          return new long[] {partition, offset};
        }
      }
    } catch (NumberFormatException e) {
      // falls through to the usage error below, which names the expected form
    }
    throw new CommandLine.ParameterException(
        spec.commandLine(), "not a position: '" + position + "' (use PARTITION@OFFSET, e.g. 0@12)");
  }

  private static Map<String, Object> summary(DeadLetter deadLetter) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("topic", deadLetter.record().topic());
    row.put("partition", deadLetter.record().partition());
    row.put("offset", deadLetter.record().offset());
    row.put("deadLetteredAt", deadLetter.deadLetteredAt().toString());
    row.put("reason", deadLetter.reason());
    row.put("detail", deadLetter.detail());
    row.put("idempotencyKey", deadLetter.idempotencyKey());
    row.put("consumer", deadLetter.consumer());
    row.put("original", deadLetter.originalPosition());
    row.put("valueOmitted", deadLetter.valueOmitted());
    return row;
  }

  /** 42s, 7m, 3h, 2d: enough to tell fresh from old. */
  static String age(Duration age) {
    long seconds = Math.max(0, age.toSeconds());
    if (seconds < 120) {
      return seconds + "s";
    }
    if (seconds < 2 * 3600) {
      return seconds / 60 + "m";
    }
    if (seconds < 2 * 86400) {
      return seconds / 3600 + "h";
    }
    return seconds / 86400 + "d";
  }
}
