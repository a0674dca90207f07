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

  @Option(
      names = "--retry-share",
      paramLabel = "SHARE",
      defaultValue = "0.1",
      description =
          "Share of orders sent again with the same key and order, as a client retry, 0 to 1 (default ${DEFAULT-VALUE}).")
  double retryShare;

  @Option(
      names = "--conflict-share",
      paramLabel = "SHARE",
      defaultValue = "0.02",
      description =
          "Share of orders whose key is reused for a different order, 0 to 1 (default ${DEFAULT-VALUE}).")
  double conflictShare;

  @Option(
      names = "--malformed-share",
      paramLabel = "SHARE",
      defaultValue = "0.01",
      description =
          "Share of orders followed by a record that is not valid JSON, 0 to 1 (default ${DEFAULT-VALUE}).")
  double malformedShare;

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
          "Print each record's kind (ORDER, CLIENT_RETRY, CONFLICT, MALFORMED) and idempotency"
              + " key as it is sent, one per line, for tracing with iox inspect --key.")
  boolean printKeys;

  @Override
  public Integer call() throws Exception {
    System.out.println("sending to " + LoadProducer.TOPIC + " on " + bootstrap);
    try (LoadProducer load =
        new LoadProducer(bootstrap, seed, retryShare, conflictShare, malformedShare)) {
      if (printKeys) {
        load.onEachSend((kind, key) -> System.out.println(kind + " " + key));
      }
      load.send(count, rate);
      System.out.println("sent " + load.sent().describe());
      // Exit 1 when Kafka did not take every record: the run is not what was asked for.
      return load.sent().failedSends.get() == 0 ? 0 : 1;
    }
  }
}
