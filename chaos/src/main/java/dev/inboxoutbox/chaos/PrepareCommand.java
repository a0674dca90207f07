package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceLaunch;
import dev.inboxoutbox.devstack.KafkaCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "prepare",
    mixinStandardHelpOptions = true,
    description = {
      "Train the services' and the Kafka brokers' class-data (AppCDS) archives, once per build.",
      "Extracts the built service jars and iox.jar, starts each service once against a throwaway stack and",
      "one broker alone, so their processes start on about half the CPU. ./iox runs it before a chaos run",
      "that lacks the archives, and a chaos run retrains stale ones itself."
    })
public final class PrepareCommand implements Callable<Integer> {

  @CommandLine.Mixin RunDirectories directories = new RunDirectories();

  /** One kind of process whose archive is trained: true when it has one. */
  @FunctionalInterface
  interface Training {
    boolean train() throws Exception;
  }

  @Override
  public Integer call() throws Exception {
    Path brokerTraining = directories.reports().resolve("prepare-kafka");
    return prepare(
        () -> KafkaCluster.prepareFastStart(brokerTraining),
        brokerTraining,
        () ->
            ServiceLaunch.prepareFastStart(
                directories.repoRoot(), directories.reports(), System.out),
        System.out);
  }

  /**
   * Trains the brokers' archive, then the services' whatever became of the brokers': each is only
   * an optimisation of its own. Exits 1 when either has no archive, after saying why.
   */
  static int prepare(Training brokers, Path brokerLogs, Training services, PrintStream out)
      throws Exception {
    boolean brokersTrained;
    try {
      brokersTrained = brokers.train();
      if (!brokersTrained) {
        out.println(
            "Kafka brokers: no class-data archive (iox.jar could not be extracted); they start"
                + " from iox.jar, more slowly");
      }
    } catch (IOException | RuntimeException e) {
      brokersTrained = false;
      out.printf(
          "Kafka brokers: no class-data archive (%s); they start from iox.jar, more slowly (see"
              + " %s)%n",
          e.getMessage(), brokerLogs);
    }
    boolean servicesTrained = services.train();
    return brokersTrained && servicesTrained ? 0 : 1;
  }
}
