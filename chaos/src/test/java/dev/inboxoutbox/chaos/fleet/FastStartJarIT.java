package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.ExtractedApplication;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service's class-data archive, trained against real PostgreSQL and Kafka, holds the classes a
 * serving instance loads after its context is refreshed: its Kafka listeners and, as the only
 * instance on its database, the embedded relay's Debezium engine. A restart in a chaos run loads
 * them again, and a new relay leader loads the engine.
 */
class FastStartJarIT {

  private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theArchiveHoldsTheListenersAndTheRelayOfAServingInstance(@TempDir Path directory)
      throws Exception {
    // The build's own jar: the archive checked is the one the chaos runs load, trained here or by
    // the runs beside this test (once, under its lock) and trained again when its stamp is stale.
    Path jar = ModuleJars.service(REPO, "order-consumer");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    FastStartJar prepared;
    try (DevStack stack = DevStack.start(DevStackSettings.fromEnvironment());
        Database db = stack.postgres().createDatabase()) {
      prepared =
          FastStartJar.prepare(
              jar,
              ModuleJars.chaosExtension(REPO),
              ServiceLaunch.serviceProperties(
                  db, stack.kafka().bootstrapServers(), "6000", Map.of()),
              directory.resolve("training.log"),
              new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    assertThat(prepared.usesArchive())
        .as(out.toString(StandardCharsets.UTF_8) + readIfPresent(directory.resolve("training.log")))
        .isTrue();
    assertThat(archivedClasses(prepared, directory.resolve("archived.txt")))
        .contains(
            "org.springframework.kafka.listener.KafkaMessageListenerContainer",
            "io.debezium.embedded.async.AsyncEmbeddedEngine",
            "io.debezium.connector.postgresql.PostgresConnectorTask");
  }

  /** The classes the archive holds, as the JVM that maps it lists them. */
  private static List<String> archivedClasses(FastStartJar prepared, Path listing)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ExtractedApplication.java());
    command.addAll(FastStartJar.JVM_OPTIONS);
    command.add("-XX:+PrintSharedArchiveAndExit");
    command.addAll(prepared.launch());
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(listing.toFile())
            .start();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    // Lines such as "266: io.debezium.embedded.async.AsyncEmbeddedEngine app_loader".
    return Files.readAllLines(listing).stream()
        .map(String::trim)
        .filter(line -> line.matches("\\d+: \\S+ .*"))
        .map(line -> line.split(" ")[1])
        .toList();
  }

  private static String readIfPresent(Path file) throws Exception {
    return Files.exists(file) ? Files.readString(file) : "";
  }
}
