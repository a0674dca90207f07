package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iox prepare} from the packaged jar, as {@code ./iox} runs it before the first chaos run of
 * a build: besides the services' archives, it extracts {@code iox.jar} next to itself and trains
 * the class-data archive the chaos run's Kafka brokers start with, one the JVM can map for the
 * extracted class path.
 */
class IoxPrepareIT {

  private static final String JAVA =
      Path.of(System.getProperty("java.home"), "bin", "java").toString();

  @Test
  void trainsAnArchiveTheBrokersJvmMaps(@TempDir Path directory) throws Exception {
    Path jar =
        Files.copy(Repository.ROOT.resolve("iox-cli/target/iox.jar"), directory.resolve("iox.jar"));
    Path log = directory.resolve("prepare.log");

    int prepared =
        run(
            List.of(
                JAVA,
                "-jar",
                jar.toString(),
                "prepare",
                "--repo=" + Repository.ROOT,
                "--reports=" + directory.resolve("reports")),
            log);

    assertThat(prepared).as(Files.readString(log)).isZero();
    Path archive = directory.resolve("iox-fast-start/dev.inboxoutbox.devstack.KafkaBrokerMain.jsa");
    assertThat(archive).exists();
    // -Xshare:on: a JVM that cannot map the archive for this class path refuses to start.
    Path mapped = directory.resolve("mapped.log");
    int started =
        run(
            List.of(
                JAVA,
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + archive,
                "-cp",
                directory.resolve("iox-fast-start/iox.jar").toString(),
                "-version"),
            mapped);
    assertThat(started).as(Files.readString(mapped)).isZero();
  }

  private static int run(List<String> command, Path log) throws Exception {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(4, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(
          String.join(" ", command) + " did not end:\n" + Files.readString(log));
    }
    return process.exitValue();
  }
}
