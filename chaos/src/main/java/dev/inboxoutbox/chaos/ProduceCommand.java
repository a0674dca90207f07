package dev.inboxoutbox.chaos;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description =
        "Send PlaceOrder commands to orders.commands with client retries, conflicts and malformed records.")
final class ProduceCommand implements Callable<Integer> {
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
