package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.Kafka;
import kafka.tools.StorageTool;

/**
 * The main class of one broker process of a chaos run's cluster: formats its log directory on the
 * first start (the cluster id comes from the run), then runs Kafka's own {@code kafka.Kafka}. One
 * JVM per broker instead of a formatting JVM before each: a start costs CPU the run needs.
 */
final class KafkaBrokerMain {

  private KafkaBrokerMain() {}

  /** {@code <server.properties> <cluster id>} */
  public static void main(String[] args) throws IOException {
    String properties = args[0];
    String clusterId = args[1];
    if (!formatted(Path.of(properties))) {
      format(properties, clusterId);
    }
    Kafka.main(new String[] {properties});
  }

  /** A restart skips the storage tool: loading it costs CPU seconds a loaded machine lacks. */
  private static boolean formatted(Path properties) throws IOException {
    Properties settings = new Properties();
    try (Reader reader = Files.newBufferedReader(properties)) {
      settings.load(reader);
    }
    return Files.exists(Path.of(settings.getProperty("log.dirs"), "meta.properties"));
  }

  private static void format(String properties, String clusterId) {
    PrintStream out = System.out;
    int formatted =
        StorageTool.execute(
            new String[] {"format", "-t", clusterId, "-c", properties, "--ignore-formatted"}, out);
    if (formatted != 0) {
      throw new IllegalStateException(
          "kafka-storage format of " + properties + " exited with " + formatted);
    }
  }
}
