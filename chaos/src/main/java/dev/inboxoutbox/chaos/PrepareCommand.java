package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceLaunch;
import dev.inboxoutbox.devstack.KafkaCluster;
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

  @Override
  public Integer call() throws Exception {
    boolean brokers = KafkaCluster.prepareFastStart(directories.reports().resolve("prepare-kafka"));
    boolean services =
        ServiceLaunch.prepareFastStart(directories.repoRoot(), directories.reports(), System.out);
    return brokers && services ? 0 : 1;
  }
}
