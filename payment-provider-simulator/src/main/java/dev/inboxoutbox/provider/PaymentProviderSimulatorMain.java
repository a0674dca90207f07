package dev.inboxoutbox.provider;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the simulator until the process is stopped. Each setting is an option {@code --name=value}
 * or the environment variable {@code PROVIDER_NAME} (upper case, dashes as underscores); the option
 * wins.
 *
 * <pre>
 * --port               PROVIDER_PORT               8090
 * --webhook-secret     PROVIDER_WEBHOOK_SECRET     whsec_dev (local runs only)
 * --webhook-url        PROVIDER_WEBHOOK_URL        http://localhost:8082/webhooks/provider
 * --duplicate-share    PROVIDER_DUPLICATE_SHARE    0.2
 * --failure-share      PROVIDER_FAILURE_SHARE      0.05
 * --delay-min-ms       PROVIDER_DELAY_MIN_MS       0
 * --delay-max-ms       PROVIDER_DELAY_MAX_MS       500
 * --seed               PROVIDER_SEED               42
 * --webhook-threads    PROVIDER_WEBHOOK_THREADS    4
 * </pre>
 */
public final class PaymentProviderSimulatorMain {

  /** Option name to default; the same secret is payment-consumer's default, for local runs. */
  private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

  static {
    DEFAULTS.put("port", "8090");
    DEFAULTS.put("webhook-secret", "whsec_dev");
    DEFAULTS.put("webhook-url", "http://localhost:8082/webhooks/provider");
    DEFAULTS.put("duplicate-share", "0.2");
    DEFAULTS.put("failure-share", "0.05");
    DEFAULTS.put("delay-min-ms", "0");
    DEFAULTS.put("delay-max-ms", "500");
    DEFAULTS.put("seed", "42");
    DEFAULTS.put("webhook-threads", "4");
  }

  private PaymentProviderSimulatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> options;
    PaymentProviderSimulator configured;
    try {
      options = settings(args, System.getenv());
      configured = build(options);
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println(e.getMessage());
      System.err.println(
          "options: " + String.join(", ", DEFAULTS.keySet().stream().map(o -> "--" + o).toList()));
      System.exit(2);
      return;
    }
    PaymentProviderSimulator simulator = configured.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  simulator.close();
                  stopped.countDown();
                },
                "provider-shutdown"));
    System.out.println(
        "payment provider simulator listening on "
            + simulator.baseUrl()
            + "; webhooks to "
            + options.get("webhook-url")
            + "; Ctrl-C stops it");
    stopped.await();
  }

  /** Options over environment over defaults; unknown options are refused. */
  static Map<String, String> settings(String[] args, Map<String, String> environment) {
    Map<String, String> settings = new LinkedHashMap<>();
    DEFAULTS.forEach(
        (name, fallback) -> {
          String fromEnvironment =
              environment.get("PROVIDER_" + name.toUpperCase(Locale.ROOT).replace('-', '_'));
          settings.put(
              name,
              fromEnvironment == null || fromEnvironment.isBlank() ? fallback : fromEnvironment);
        });
    for (String arg : args) {
      int equals = arg.indexOf('=');
      if (!arg.startsWith("--") || equals < 0) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      String name = arg.substring(2, equals);
      if (!DEFAULTS.containsKey(name)) {
        throw new IllegalArgumentException("unknown option --" + name);
      }
      settings.put(name, arg.substring(equals + 1));
    }
    return settings;
  }

  static PaymentProviderSimulator build(Map<String, String> settings) {
    try {
      return PaymentProviderSimulator.builder()
          .port(Integer.parseInt(settings.get("port")))
          .webhookSecret(settings.get("webhook-secret"))
          .webhookUrl(settings.get("webhook-url"))
          .duplicateShare(Double.parseDouble(settings.get("duplicate-share")))
          .failureShare(Double.parseDouble(settings.get("failure-share")))
          .delay(
              Duration.ofMillis(Long.parseLong(settings.get("delay-min-ms"))),
              Duration.ofMillis(Long.parseLong(settings.get("delay-max-ms"))))
          .seed(Long.parseLong(settings.get("seed")))
          .webhookThreads(Integer.parseInt(settings.get("webhook-threads")))
          .build();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number: " + e.getMessage(), e);
    }
  }
}
