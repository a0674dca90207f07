package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceFleet;
import dev.inboxoutbox.chaos.fleet.ServiceLaunch;
import dev.inboxoutbox.chaos.fleet.ServiceProcess;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.devstack.StopRequest;
import dev.inboxoutbox.devstack.StopSignal;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Everything a person needs to try the services by hand, in one command: the dev stack, both
 * services and the payment provider simulator on their usual ports, until Ctrl-C.
 */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
      "Start the dev stack (embedded PostgreSQL, Kafka), order-consumer, payment-consumer and the payment",
      "provider simulator on their usual ports, print where they are and what to try, and run until Ctrl-C,",
      "which stops them all."
    })
public final class UpCommand implements Callable<Integer> {

  /** The payment provider's webhook secret in development: the simulator's and the services'. */
  static final String DEV_WEBHOOK_SECRET = "whsec_dev";

  static final String EMBEDDED_RELAY = "embedded";
  static final String CONNECT_RELAY = "connect";

  @Option(
      names = "--postgres-port",
      paramLabel = "PORT",
      defaultValue = "15432",
      description = "Embedded PostgreSQL's port (default ${DEFAULT-VALUE}).")
  int postgresPort;

  @Option(
      names = "--kafka-port",
      paramLabel = "PORT",
      defaultValue = "19092",
      description = "Embedded Kafka's port (default ${DEFAULT-VALUE}).")
  int kafkaPort;

  @Option(
      names = "--order-port",
      paramLabel = "PORT",
      defaultValue = "8081",
      description = "order-consumer's HTTP port (default ${DEFAULT-VALUE}).")
  int orderPort;

  @Option(
      names = "--payment-port",
      paramLabel = "PORT",
      defaultValue = "8082",
      description = "payment-consumer's HTTP port (default ${DEFAULT-VALUE}).")
  int paymentPort;

  @Option(
      names = "--provider-port",
      paramLabel = "PORT",
      defaultValue = "8090",
      description = "The payment provider simulator's port (default ${DEFAULT-VALUE}).")
  int providerPort;

  @Option(
      names = "--otlp-endpoint",
      paramLabel = "URL",
      description = {
        "Export both services' traces over OTLP/HTTP to this collector endpoint, every request and",
        "record sampled, e.g. http://localhost:4318/v1/traces (default: no tracing)."
      })
  URI otlpEndpoint;

  @Option(
      names = "--relay",
      paramLabel = "RELAY",
      defaultValue = EMBEDDED_RELAY,
      description = {
        "What relays the services' outboxes to Kafka: "
            + EMBEDDED_RELAY
            + " (the Debezium engine in",
        "each service, the default) or "
            + CONNECT_RELAY
            + " (a Kafka Connect worker running the outbox",
        "connector, one connector per database; takes the build's plugin archive, see --repo)."
      })
  String relay;

  @CommandLine.Mixin RunDirectories directories = new RunDirectories();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    if (!EMBEDDED_RELAY.equals(relay) && !CONNECT_RELAY.equals(relay)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--relay is " + EMBEDDED_RELAY + " or " + CONNECT_RELAY + ", not '" + relay + "'");
    }
    if (otlpEndpoint != null
        && !"http".equals(otlpEndpoint.getScheme())
        && !"https".equals(otlpEndpoint.getScheme())) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--otlp-endpoint takes an http:// or https:// URL, e.g."
              + " http://localhost:4318/v1/traces, not '"
              + otlpEndpoint
              + "'");
    }
    Path root = directories.repoRoot();
    Path logs =
        Files.createDirectories(
            directories
                .reports()
                .resolve("up-" + Instant.now().toString().replace(':', '-'))
                .resolve("logs"));
    DevStackSettings settings =
        DevStackSettings.fromEnvironment().withPostgresPort(postgresPort).withKafkaPort(kafkaPort);
    // Closed last first: after a stop signal, also one while starting, in this thread; by a
    // shutdown hook when the JVM exits for another reason.
    Deque<AutoCloseable> running = new ArrayDeque<>();
    Thread stopOnExit = new Thread(() -> closeAll(running), "iox-up-shutdown");
    Runtime.getRuntime().addShutdownHook(stopOnExit);
    StopRequest stop = StopSignal.interruptOnFirst(Thread.currentThread());
    try {
      out.println("starting the dev stack...");
      DevStack stack = push(running, stop.start(() -> DevStack.start(settings)));
      Database orders = stack.postgres().database("order_consumer");
      Database payments = stack.postgres().database("payment_consumer");
      String bootstrap = stack.kafka().bootstrapServers();
      PaymentProviderSimulator provider =
          push(
              running,
              PaymentProviderSimulator.builder()
                  .port(providerPort)
                  .webhookSecret(DEV_WEBHOOK_SECRET)
                  .webhookUrl("http://localhost:" + paymentPort + "/webhooks/provider")
                  .build()
                  .start());
      Map<String, String> orderProperties =
          ServiceLaunch.serviceProperties(orders, bootstrap, "6000", Map.of());
      Map<String, String> paymentProperties =
          ServiceLaunch.serviceProperties(
              payments,
              bootstrap,
              "6000",
              ServiceLaunch.paymentProviderProperties(
                  provider.baseUrl().toString(), DEV_WEBHOOK_SECRET));
      ServiceLaunch.Jars jars =
          ServiceLaunch.prepare(root, orderProperties, paymentProperties, logs, out);
      ServiceFleet services = push(running, new ServiceFleet(new Random(), Duration.ZERO, out));
      // After the class-data training, which exports nothing and runs the embedded relay.
      services.addOrderService(
          new ServiceProcess(
              "order-consumer", jars.orders(), orderPort, launched(orderProperties), logs));
      services.addPaymentService(
          new ServiceProcess(
              "payment-consumer", jars.payments(), paymentPort, launched(paymentProperties), logs));
      out.println("starting order-consumer and payment-consumer...");
      services.start(Duration.ofMinutes(3));
      String relayLine = "embedded in each service";
      if (CONNECT_RELAY.equals(relay)) {
        // After the services: their migrations create the outbox tables and the publications.
        out.println("starting a Kafka Connect worker with the outbox connector...");
        ConnectRelay connect =
            push(running, ConnectRelay.start(root, bootstrap, orders, payments, logs));
        relayLine = connect.describe();
      }
      printWhereEverythingIs(orders, payments, bootstrap, provider, relayLine, logs);
      new CountDownLatch(1).await();
    } catch (Exception e) {
      if (!stop.getAsBoolean()) {
        throw e;
      }
      // However the interrupt surfaced, the stop below must not see it: it waits for processes.
      Thread.interrupted();
      out.println("stopping...");
    } finally {
      closeAll(running);
      try {
        Runtime.getRuntime().removeShutdownHook(stopOnExit);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The JVM exits for a reason of its own: the hook is what closes everything.
      }
    }
    out.println("stopped.");
    return 0;
  }

  /** A service's settings as this run launches it: traced, and its relay off under Connect. */
  private Map<String, String> launched(Map<String, String> properties) {
    Map<String, String> launched = new LinkedHashMap<>(properties);
    if (otlpEndpoint != null) {
      launched.putAll(ServiceLaunch.tracingTo(otlpEndpoint));
    }
    if (CONNECT_RELAY.equals(relay)) {
      launched.put("inbox-outbox.relay.enabled", "false");
    }
    return launched;
  }

  private void printWhereEverythingIs(
      Database orders,
      Database payments,
      String bootstrap,
      PaymentProviderSimulator provider,
      String relayLine,
      Path logs) {
    out.printf(
        """

        up:
          order-consumer      http://localhost:%1$d   (/actuator/health, /actuator/prometheus)
          payment-consumer    http://localhost:%2$d
          payment provider    %3$s
          Kafka               %4$s
          PostgreSQL          %5$s
                              %6$s
          relay               %9$s
          logs                %7$s
          traces              %8$s

        try, in another terminal:
          ./iox produce --bootstrap %4$s --count 100
          ./iox inspect --jdbc-url %5$s
          curl -i -X POST http://localhost:%1$d/orders -H 'Content-Type: application/json' \\
               -H 'Idempotency-Key: 7f8c7a52-3d1e-4c57-9d0e-1f2a3b4c5d6e' \\
               -d '{"customerId":"c-1","items":[{"sku":"SKU-01","qty":1,"unitPriceCents":1250}]}'
          ./iox inspect --jdbc-url %6$s

        Ctrl-C stops everything.
        """,
        orderPort,
        paymentPort,
        provider.baseUrl(),
        bootstrap,
        orders.jdbcUrl(),
        payments.jdbcUrl(),
        logs,
        otlpEndpoint == null ? "not exported (--otlp-endpoint)" : "OTLP to " + otlpEndpoint,
        relayLine);
  }

  private static <T extends AutoCloseable> T push(Deque<AutoCloseable> running, T resource) {
    synchronized (running) {
      running.push(resource);
    }
    return resource;
  }

  private static void closeAll(Deque<AutoCloseable> running) {
    synchronized (running) {
      while (!running.isEmpty()) {
        try {
          running.pop().close();
        } catch (Exception e) {
          System.err.println("iox up: stopping failed: " + e);
        }
      }
    }
  }
}
