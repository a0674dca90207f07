package dev.inboxoutbox.provider;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code iox provider}: the one way to run the payment provider simulator as its own process. Every
 * setting of {@link PaymentProviderSimulator.Builder} is an option; each option's default can be
 * replaced by an environment variable {@code PROVIDER_<NAME>} (docker-compose sets those).
 */
@Command(
    name = "provider",
    mixinStandardHelpOptions = true,
    description = {
      "Run the payment provider simulator until stopped: POST /v1/charges and POST /v1/refunds honouring Idempotency-Key, GET /v1/ledger, and HMAC-signed webhooks delivered at-least-once (duplicates, delays, retries).",
      "Each default can be set by the environment variable named in brackets; an option wins over it."
    },
    sortOptions = false)
public final class ProviderCommand implements Callable<Integer> {

  /** Runs the simulator as its own process, outside iox: {@code java -jar <simulator>-exec.jar}. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ProviderCommand()).execute(args));
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--host",
      paramLabel = "ADDRESS",
      defaultValue = "${env:PROVIDER_HOST:-0.0.0.0}",
      description = "Interface to listen on [PROVIDER_HOST] (default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "${env:PROVIDER_PORT:-8090}",
      description = "HTTP port; 0 takes a free one [PROVIDER_PORT] (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--webhook-url",
      paramLabel = "URL",
      defaultValue = "${env:PROVIDER_WEBHOOK_URL:-http://localhost:8082/webhooks/provider}",
      description = "Where webhooks are POSTed [PROVIDER_WEBHOOK_URL] (default ${DEFAULT-VALUE}).")
  String webhookUrl;

  @Option(
      names = "--webhook-secret",
      paramLabel = "SECRET",
      defaultValue = "${env:PROVIDER_WEBHOOK_SECRET:-whsec_dev}",
      description =
          "HMAC-SHA256 secret webhooks are signed with; the receiver needs the same one [PROVIDER_WEBHOOK_SECRET] (default ${DEFAULT-VALUE}, payment-consumer's development secret; local runs only).")
  String webhookSecret;

  @Option(
      names = "--duplicate-share",
      paramLabel = "SHARE",
      defaultValue = "${env:PROVIDER_DUPLICATE_SHARE:-0.2}",
      description =
          "Share of webhook events delivered twice, 0 to 1 [PROVIDER_DUPLICATE_SHARE] (default ${DEFAULT-VALUE}).")
  double duplicateShare;

  @Option(
      names = "--failure-share",
      paramLabel = "SHARE",
      defaultValue = "${env:PROVIDER_FAILURE_SHARE:-0.05}",
      description =
          "Share of charges that fail (status failed, webhook charge.failed), 0 to 1; which keys fail follows from the seed [PROVIDER_FAILURE_SHARE] (default ${DEFAULT-VALUE}).")
  double failureShare;

  @Option(
      names = "--delay-min-ms",
      paramLabel = "MILLIS",
      defaultValue = "${env:PROVIDER_DELAY_MIN_MS:-0}",
      description =
          "Shortest random delay of a webhook copy, in ms [PROVIDER_DELAY_MIN_MS] (default ${DEFAULT-VALUE}).")
  long delayMinMs;

  @Option(
      names = "--delay-max-ms",
      paramLabel = "MILLIS",
      defaultValue = "${env:PROVIDER_DELAY_MAX_MS:-500}",
      description =
          "Longest random delay of a webhook copy, in ms; the spread reorders deliveries [PROVIDER_DELAY_MAX_MS] (default ${DEFAULT-VALUE}).")
  long delayMaxMs;

  @Option(
      names = "--retry-min-ms",
      paramLabel = "MILLIS",
      defaultValue = "${env:PROVIDER_RETRY_MIN_MS:-100}",
      description =
          "First pause before retrying a webhook copy not answered with a 2xx, in ms; doubles per failed attempt [PROVIDER_RETRY_MIN_MS] (default ${DEFAULT-VALUE}).")
  long retryMinMs;

  @Option(
      names = "--retry-max-ms",
      paramLabel = "MILLIS",
      defaultValue = "${env:PROVIDER_RETRY_MAX_MS:-5000}",
      description =
          "Longest pause between webhook retries, in ms [PROVIDER_RETRY_MAX_MS] (default ${DEFAULT-VALUE}).")
  long retryMaxMs;

  @Option(
      names = "--seed",
      paramLabel = "SEED",
      defaultValue = "${env:PROVIDER_SEED:-42}",
      description =
          "Seeds charge ids, event ids, failures, duplicates and delays, so a run can be repeated [PROVIDER_SEED] (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--webhook-threads",
      paramLabel = "THREADS",
      defaultValue = "${env:PROVIDER_WEBHOOK_THREADS:-4}",
      description =
          "Threads delivering webhooks [PROVIDER_WEBHOOK_THREADS] (default ${DEFAULT-VALUE}).")
  int webhookThreads;

  @Option(
      names = "--request-threads",
      paramLabel = "THREADS",
      defaultValue = "${env:PROVIDER_REQUEST_THREADS:-16}",
      description =
          "Threads serving HTTP requests; several, so concurrent requests with one key race for it [PROVIDER_REQUEST_THREADS] (default ${DEFAULT-VALUE}).")
  int requestThreads;

  @Override
  public Integer call() throws InterruptedException {
    PaymentProviderSimulator configured = simulator();
    try (PaymentProviderSimulator simulator = configured.start()) {
      System.out.println(
          "payment provider simulator listening on "
              + simulator.baseUrl()
              + "; webhooks to "
              + (webhookUrl == null || webhookUrl.isBlank()
                  ? "nowhere yet (no --webhook-url; deliveries wait)"
                  : webhookUrl)
              + "; Ctrl-C stops it");
      // Runs until the process is stopped; the JVM's exit closes the sockets.
      new CountDownLatch(1).await();
    }
    return 0;
  }

  /** The simulator these options describe, not started; a refused setting is a usage error. */
  PaymentProviderSimulator simulator() {
    try {
      return PaymentProviderSimulator.builder()
          .host(host)
          .port(port)
          .webhookUrl(webhookUrl)
          .webhookSecret(webhookSecret)
          .duplicateShare(duplicateShare)
          .failureShare(failureShare)
          .delay(Duration.ofMillis(delayMinMs), Duration.ofMillis(delayMaxMs))
          .retryBackoff(Duration.ofMillis(retryMinMs), Duration.ofMillis(retryMaxMs))
          .seed(seed)
          .webhookThreads(webhookThreads)
          .requestThreads(requestThreads)
          .build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
