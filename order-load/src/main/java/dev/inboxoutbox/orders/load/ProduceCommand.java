package dev.inboxoutbox.orders.load;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description =
        "Send PlaceOrder commands to orders.commands with client retries, conflicts and malformed records.")
public final class ProduceCommand implements Callable<Integer> {
  @Option(
      names = "--bootstrap",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:IOX_KAFKA_BOOTSTRAP:-localhost:19092}",
      description = "Kafka bootstrap servers, else IOX_KAFKA_BOOTSTRAP (default ${DEFAULT-VALUE}).")
  String bootstrap;

  @Option(
      names = "--count",
      paramLabel = "COUNT",
      defaultValue = "100",
      description =
          "Distinct orders to send, each with a fresh idempotency key (default ${DEFAULT-VALUE}).")
  int count;

  @Option(
      names = "--rate",
      paramLabel = "PER_SECOND",
      defaultValue = "50",
      description = "Orders per second; 0 = as fast as possible (default ${DEFAULT-VALUE}).")
  int rate;

  @CommandLine.Mixin LoadShares shares = new LoadShares();

  @Option(
      names = "--seed",
      paramLabel = "SEED",
      defaultValue = "1",
      description =
          "Random seed for customers, items and shares; keys are random UUIDs (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--print-keys",
      description =
          "Print each record's kind (ORDER, CLIENT_RETRY, CONFLICT, MALFORMED, CANCEL) and idempotency"
              + " key as it is sent, one per line, for tracing with iox inspect --key.")
  boolean printKeys;

  @Override
  public Integer call() throws Exception {
    System.out.println("sending to " + LoadProducer.TOPIC + " on " + bootstrap);
    try (LoadProducer load =
        new LoadProducer(
            bootstrap,
            seed,
            shares.retryShare,
            shares.conflictShare,
            shares.malformedShare,
            shares.cancelShare)) {
      if (printKeys) {
        load.onEachSend((kind, key) -> System.out.println(kind + " " + key));
      }
      load.send(count, rate);
      System.out.println("sent " + load.sent().describe());
      // Exit 1 when Kafka did not take every record: the run is not what was asked for.
      return load.sent().failedSends() == 0 ? 0 : 1;
    }
  }
}
