package dev.inboxoutbox.chaos.fleet;

import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How the service processes are launched: their settings, the chaos extension's settings, and the
 * extracted jars with their class-data archives.
 */
public final class ServiceLaunch {

  /** What Spring Boot's OpenTelemetry starter configures: left out while nothing collects spans. */
  static final List<String> TRACING_AUTO_CONFIGURATIONS =
      List.of(
          "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
          "org.springframework.boot.opentelemetry.autoconfigure.logging"
              + ".OpenTelemetryLoggingAutoConfiguration",
          "org.springframework.boot.opentelemetry.autoconfigure.logging.otlp"
              + ".OtlpLoggingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure"
              + ".OpenTelemetryTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.otlp"
              + ".OtlpTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.zipkin"
              + ".ZipkinWithOpenTelemetryTracingAutoConfiguration",
          "org.springframework.boot.micrometer.tracing.autoconfigure"
              + ".MicrometerTracingAutoConfiguration");

  private ServiceLaunch() {}

  /** The two services' launchers, order-consumer first. */
  public record Jars(FastStartJar orders, FastStartJar payments) {}

  /**
   * What {@code iox prepare} runs once per build: extracts both services and trains their
   * class-data archives against a throwaway stack, so the first chaos run after a build starts with
   * them. A chaos run still trains by itself when they are missing or stale. Returns whether both
   * archives are ready.
   */
  public static boolean prepareFastStart(Path repoRoot, Path reportDirectory, PrintStream out)
      throws Exception {
    Path logs =
        Files.createDirectories(
            reportDirectory.resolve("prepare-" + Instant.now().toString().replace(':', '-')));
    try (DevStack stack = DevStack.start(DevStackSettings.fromEnvironment());
        Database ordersDb = stack.postgres().createDatabase();
        Database paymentsDb = stack.postgres().createDatabase()) {
      String bootstrap = stack.kafka().bootstrapServers();
      // Training ends once the instance serves, before any record: nothing calls the provider.
      Jars jars =
          prepare(
              repoRoot,
              serviceProperties(ordersDb, bootstrap, "6000", Map.of()),
              serviceProperties(
                  paymentsDb,
                  bootstrap,
                  "6000",
                  paymentProviderProperties("http://localhost:9", "whsec_prepare")),
              logs,
              out);
      out.printf(
          "service processes will start from: %s, %s%n",
          jars.orders().description(), jars.payments().description());
      return jars.orders().usesArchive() && jars.payments().usesArchive();
    }
  }

  /**
   * Finds the built jars and prepares both services at once: each training run is single-threaded
   * for most of its life.
   */
  public static Jars prepare(
      Path repoRoot,
      Map<String, String> orderProperties,
      Map<String, String> paymentProperties,
      Path logs,
      PrintStream out)
      throws Exception {
    Path orderJar = ModuleJars.service(repoRoot, "order-consumer");
    Path paymentJar = ModuleJars.service(repoRoot, "payment-consumer");
    Path extension = ModuleJars.chaosExtension(repoRoot);
    ExecutorService preparing = Executors.newFixedThreadPool(2);
    try {
      Future<FastStartJar> orders =
          preparing.submit(
              () ->
                  FastStartJar.prepare(
                      orderJar,
                      extension,
                      orderProperties,
                      logs.resolve("order-consumer-training.log"),
                      out));
      Future<FastStartJar> payments =
          preparing.submit(
              () ->
                  FastStartJar.prepare(
                      paymentJar,
                      extension,
                      paymentProperties,
                      logs.resolve("payment-consumer-training.log"),
                      out));
      return new Jars(orders.get(), payments.get());
    } finally {
      preparing.shutdownNow();
    }
  }

  /**
   * The chaos extension's settings for a run: its crash points, armed while {@code armingFile}
   * exists, and the negative control if asked for. Only the chaos extension on the services' class
   * path reads {@code iox.chaos.*}.
   */
  public static Map<String, String> chaosProperties(ChaosOptions options, Path armingFile) {
    Map<String, String> properties = new LinkedHashMap<>();
    if (options.crashPointProbability() > 0) {
      properties.put("iox.chaos.arming-file", armingFile.toString());
      for (String point :
          List.of("MID_HANDLER", "AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT", "RELAY_AFTER_PUBLISH")) {
        properties.put(
            "iox.chaos.crash-points." + point, String.valueOf(options.crashPointProbability()));
      }
    }
    switch (options.negativeControl()) {
      case NO_DEDUP -> properties.put("iox.chaos.dedup-off", "true");
      case INBOX_OFF -> properties.put("iox.chaos.inbox-off", "true");
      case REORDER -> properties.put("iox.chaos.reorder-batches", "true");
      case DROP_REFUNDS -> properties.put("iox.chaos.drop-refund-requests", "true");
      case NONE -> {}
    }
    return properties;
  }

  public static Map<String, String> paymentProviderProperties(
      String providerUrl, String webhookSecret) {
    return Map.of(
        "payment.provider.url", providerUrl, "payment.provider.webhook-secret", webhookSecret);
  }

  public static Map<String, String> serviceProperties(
      Database db, String bootstrap, String sessionTimeoutMs, Map<String, String> extra) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("spring.datasource.url", db.jdbcUrl());
    properties.put("spring.datasource.username", db.username());
    properties.put("spring.datasource.password", db.password());
    properties.put("spring.kafka.bootstrap-servers", bootstrap);
    properties.put("spring.kafka.consumer.max-poll-records", "200");
    properties.put("spring.kafka.consumer.properties.session.timeout.ms", sessionTimeoutMs);
    properties.put("spring.kafka.consumer.properties.heartbeat.interval.ms", "1000");
    properties.put("inbox-outbox.relay.enabled", "true");
    properties.put("inbox-outbox.relay.offset-flush-interval", "500ms");
    properties.put("inbox-outbox.relay.standby-poll-interval", "300ms");
    properties.put("inbox-outbox.relay.restart-backoff-min", "300ms");
    properties.put("inbox-outbox.relay.restart-backoff-max", "3s");
    // A consumer backs off up to 10 s by default after database failures: after a 5 s PostgreSQL
    // crash its partitions then wait out the rest of the pause. Like the relay's, its pause stays
    // short here, where the database comes back within seconds.
    properties.put("inbox-outbox.consumer.retry-backoff-max", "2s");
    properties.put("inbox-outbox.retention.enabled", "false");
    properties.put("management.endpoint.health.show-details", "always");
    properties.put("spring.main.banner-mode", "off");
    // Where each new relay leader resumes (stored offset, slot position, the restart search) is in
    // the logs: a few lines per leader change, and what explained the one run that lost a batch.
    properties.put("logging.level.io.debezium.connector.postgresql", "INFO");
    // Without a collector nothing would read the spans: no OpenTelemetry SDK and no tracer, so a
    // start costs what it did without the starter (about 0.3 CPU-seconds less).
    properties.put("spring.autoconfigure.exclude", String.join(",", TRACING_AUTO_CONFIGURATIONS));
    properties.putAll(extra);
    return properties;
  }

  /**
   * The settings that make a service trace every request and record and export the spans over
   * OTLP/HTTP to {@code endpoint} (a collector's {@code /v1/traces}).
   */
  public static Map<String, String> tracingTo(URI endpoint) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("spring.autoconfigure.exclude", "");
    properties.put("management.tracing.sampling.probability", "1.0");
    properties.put("management.opentelemetry.tracing.export.otlp.endpoint", endpoint.toString());
    // A person watching the collector sees a request's spans a second after it, not after the
    // batch processor's default five.
    properties.put("management.opentelemetry.tracing.export.schedule-delay", "1s");
    return properties;
  }
}
