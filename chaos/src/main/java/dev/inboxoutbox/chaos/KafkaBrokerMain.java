package dev.inboxoutbox.chaos;

import java.io.PrintStream;
import kafka.Kafka;
import kafka.tools.StorageTool;

/**
 * The main class of one broker process of a chaos run's cluster: formats its log directory on the
 * first start (the cluster id comes from the run), then runs Kafka's own {@code kafka.Kafka}. One
 * JVM per broker instead of a formatting JVM before each: a start costs CPU the run needs.
 */
public final class KafkaBrokerMain {

  private KafkaBrokerMain() {}

  /** {@code <server.properties> <cluster id>} */
  public static void main(String[] args) {
    String properties = args[0];
    String clusterId = args[1];
    PrintStream out = System.out;
    int formatted =
        StorageTool.execute(
            new String[] {"format", "-t", clusterId, "-c", properties, "--ignore-formatted"}, out);
    if (formatted != 0) {
      throw new IllegalStateException(
          "kafka-storage format of " + properties + " exited with " + formatted);
    }
    Kafka.main(new String[] {properties});
  }
}
