package dev.inboxoutbox.chaos;

import dev.inboxoutbox.devstack.Database;
import dev.inboxoutbox.devstack.DevStack;
import dev.inboxoutbox.devstack.DevStackSettings;
import dev.inboxoutbox.provider.PaymentProviderSimulator;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The main job: starts (or connects to) PostgreSQL and Kafka, runs order-consumer and
 * payment-consumer as real processes, produces orders, SIGKILLs instances and relay leaders at
 * random moments (and lets them halt at named crash points), restarts them, waits for quiet and
 * verifies that every effect happened exactly once.
 */
final class ChaosRun {

  private static final Duration STARTING_VICTIM_MIN_AGE = Duration.ofSeconds(5);
  private static final Pattern MEASUREMENT = Pattern.compile("\"value\"\\s*:\\s*([0-9.E+-]+)");

  private final ChaosOptions options;
  private final PrintStream out;
  private final Random random;
  private final List<ServiceProcess> orderServices = new ArrayList<>();
  private final List<ServiceProcess> paymentServices = new CopyOnWriteList();
  private final Map<String, AtomicInteger> kills = new LinkedHashMap<>();
  private final AtomicInteger killsOfServingInstances = new AtomicInteger();
  private final Set<ServiceProcess> killedDuringStartUp = ConcurrentHashMap.newKeySet();
  private final Set<ServiceProcess> killedByUs = ConcurrentHashMap.newKeySet();
  private final Map<ServiceProcess, double[]> duplicates = new ConcurrentHashMap<>();
  private final List<Map<String, Object>> timeline = new ArrayList<>();
  private final List<Map<String, Object>> killLog = new ArrayList<>();

  /** A list the webhook proxy may read while the run fills it. */
  private static final class CopyOnWriteList
      extends java.util.concurrent.CopyOnWriteArrayList<ServiceProcess> {
    private static final long serialVersionUID = 1L;
  }

  ChaosRun(ChaosOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
    this.random = new Random(options.seed());
    for (String kind : List.of("random", "relay-leader", "crash-point")) {
      kills.put(kind, new AtomicInteger());
    }
  }

  /** Runs, writes the report and returns whether every invariant held. */
  boolean run() throws Exception {
    Instant started = Instant.now();
    Optional<MachineLoad.Sample> cpuAtStart = MachineLoad.Sample.read();
    out.printf(
        "iox chaos: seed %d, %d orders at %d/s, %d order-consumer + %d payment-consumer processes, dedup %s%n",
        options.seed(),
        options.orders(),
        options.ratePerSecond(),
        options.orderInstances(),
        options.paymentInstances(),
        options.dedup() ? "on" : "OFF (negative control)");
    Path runDirectory =
        options.reportDirectory().resolve("chaos-" + started.toString().replace(':', '-'));
    Path logs = Files.createDirectories(runDirectory.resolve("logs"));
    Path orderJar = ModuleJars.service(options.repoRoot(), "order-consumer");
    Path paymentJar = ModuleJars.service(options.repoRoot(), "payment-consumer");
    Path extension = ModuleJars.chaosExtension(options.repoRoot());
    String secret = "whsec_" + UUID.randomUUID();
    // Crash points fire while this file exists: during the kill phase, not while the run drains.
    Path crashPointsArmed =
        Files.writeString(
            runDirectory.resolve("crash-points-armed"),
            "the services' crash points may fire while this file exists\n");

    DevStackSettings settings = DevStackSettings.fromEnvironment();
    // A killed member's partitions wait for its session to expire. The embedded broker accepts 3 s;
    // an external one may keep Kafka's 6 s floor.
    String sessionTimeoutMs = settings.kafkaBootstrap().isPresent() ? "6000" : "3000";
    try (DevStack stack = DevStack.start(settings);
        Database ordersDb = stack.postgres().createDatabase();
        Database paymentsDb = stack.postgres().createDatabase();
        WebhookProxy proxy = new WebhookProxy(paymentServices);
        PaymentProviderSimulator provider =
            PaymentProviderSimulator.builder()
                .port(0)
                .webhookSecret(secret)
                .webhookUrl(proxy.url())
                .duplicateShare(options.webhookDuplicateShare())
                .delay(Duration.ZERO, Duration.ofMillis(100))
                .webhookThreads(16)
                .failureShare(0.05)
                .seed(options.seed())
                .build()
                .start()) {
      String bootstrap = stack.kafka().bootstrapServers();
      out.printf(
          "stack: %s, %s; provider on port %d; logs in %s%n",
          stack.postgres().description(), stack.kafka().description(), provider.port(), logs);
      Map<String, String> orderProperties =
          runProperties(ordersDb, bootstrap, sessionTimeoutMs, crashPointsArmed, Map.of());
      Map<String, String> paymentProperties =
          runProperties(
              paymentsDb,
              bootstrap,
              sessionTimeoutMs,
              crashPointsArmed,
              paymentProviderProperties(provider.baseUrl().toString(), secret));
      FastStartJar[] jars =
          prepareJars(
              orderJar, orderProperties, paymentJar, paymentProperties, extension, logs, out);
      for (int i = 1; i <= options.orderInstances(); i++) {
        orderServices.add(
            new ServiceProcess("order-consumer-" + i, jars[0], freePort(), orderProperties, logs));
      }
      for (int i = 1; i <= options.paymentInstances(); i++) {
        paymentServices.add(
            new ServiceProcess(
                "payment-consumer-" + i, jars[1], freePort(), paymentProperties, logs));
      }
      List<ServiceProcess> all =
          Stream.concat(orderServices.stream(), paymentServices.stream()).toList();
      for (ServiceProcess service : all) {
        service.start();
      }
      awaitReady(all, Duration.ofMinutes(3));
      out.printf(
          "all %d processes up after %d s (%s)%n",
          all.size(), Duration.between(started, Instant.now()).toSeconds(), jars[0].description());

      Instant loadStarted = Instant.now();
      ExecutorService background = Executors.newFixedThreadPool(2);
      ExecutorService restarts = Executors.newCachedThreadPool();
      java.util.concurrent.ScheduledExecutorService supervisor =
          Executors.newSingleThreadScheduledExecutor();
      supervisor.scheduleWithFixedDelay(
          () -> restartCrashed(all, restarts),
          200,
          200,
          java.util.concurrent.TimeUnit.MILLISECONDS);
      try (LoadProducer load =
          new LoadProducer(
              bootstrap,
              options.seed(),
              options.retryShare(),
              options.conflictShare(),
              options.malformedShare())) {
        Future<?> producing =
            background.submit(
                () -> {
                  load.send(options.orders(), options.ratePerSecond());
                  return null;
                });
        killWhileLoading(all, producing, load, ordersDb, loadStarted, restarts);
        // The kill phase is over: a crash from here on would only be kill 21, 22... and a restart
        // the drain has to wait for.
        Files.deleteIfExists(crashPointsArmed);
        producing.get();
        background.shutdownNow();
        List<String> down =
            awaitQuiescence(ordersDb, paymentsDb, bootstrap, load, loadStarted, all);
        supervisor.shutdownNow();
        restarts.shutdownNow();
        out.println();
        out.println(
            down == null
                ? "quiet, every process back up: verifying"
                : "did not go quiet within "
                    + options.quiescenceTimeout()
                    + (down.isEmpty() ? "" : " (not up: " + String.join(", ", down) + ")")
                    + ": verifying anyway");
        List<Invariant> invariants =
            new Verifier(ordersDb.dataSource(), paymentsDb.dataSource(), bootstrap)
                .verify(load.sent(), provider.ledger());
        Duration took = Duration.between(started, Instant.now());
        Optional<MachineLoad> machine =
            cpuAtStart.flatMap(
                start ->
                    MachineLoad.Sample.read()
                        .map(
                            end ->
                                MachineLoad.between(
                                    start, end, Runtime.getRuntime().availableProcessors())));
        Report report =
            new Report(
                options,
                load.sent().summary(),
                killCounts(),
                invariants,
                timeline,
                killLog,
                Map.of(
                    "webhooks",
                    provider.webhookStats().toString(),
                    "ledgerEntries",
                    provider.ledger().size()),
                took,
                machine);
        report.print(out);
        Path json = report.writeJson(runDirectory);
        Path html = report.writeHtml(runDirectory);
        out.printf("report: %s%n        %s%n", json, html);
        return report.passed();
      } finally {
        background.shutdownNow();
        all.forEach(ServiceProcess::kill);
      }
    }
  }

  /**
   * What {@code iox prepare} runs once per build: extracts both services and trains their
   * class-data archives against a throwaway stack, so the first chaos run after a build starts with
   * them. A chaos run still trains by itself when they are missing or stale. Returns whether both
   * archives are ready.
   */
  static boolean prepareFastStart(Path repoRoot, Path reportDirectory, PrintStream out)
      throws Exception {
    Path orderJar = ModuleJars.service(repoRoot, "order-consumer");
    Path paymentJar = ModuleJars.service(repoRoot, "payment-consumer");
    Path extension = ModuleJars.chaosExtension(repoRoot);
    Path logs =
        Files.createDirectories(
            reportDirectory.resolve("prepare-" + Instant.now().toString().replace(':', '-')));
    try (DevStack stack = DevStack.start(DevStackSettings.fromEnvironment());
        Database ordersDb = stack.postgres().createDatabase();
        Database paymentsDb = stack.postgres().createDatabase()) {
      String bootstrap = stack.kafka().bootstrapServers();
      // Training stops once the context is refreshed: nothing calls the provider, any URL will do.
      FastStartJar[] jars =
          prepareJars(
              orderJar,
              serviceProperties(ordersDb, bootstrap, "6000", Map.of()),
              paymentJar,
              serviceProperties(
                  paymentsDb,
                  bootstrap,
                  "6000",
                  paymentProviderProperties("http://localhost:9", "whsec_prepare")),
              extension,
              logs,
              out);
      out.printf(
          "service processes will start from: %s, %s%n",
          jars[0].description(), jars[1].description());
      return jars[0].usesArchive() && jars[1].usesArchive();
    }
  }

  private static Map<String, String> paymentProviderProperties(
      String providerUrl, String webhookSecret) {
    return Map.of(
        "payment.provider.url", providerUrl, "payment.provider.webhook-secret", webhookSecret);
  }

  /** Both services train at once: each training run is single-threaded for most of its life. */
  private static FastStartJar[] prepareJars(
      Path orderJar,
      Map<String, String> orderProperties,
      Path paymentJar,
      Map<String, String> paymentProperties,
      Path extension,
      Path logs,
      PrintStream out)
      throws Exception {
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
      return new FastStartJar[] {orders.get(), payments.get()};
    } finally {
      preparing.shutdownNow();
    }
  }

  /**
   * The service settings of this run: with its crash points, armed while {@code crashPointsArmed}
   * exists, and the negative control if asked for. Only the chaos extension on the services' class
   * path reads {@code iox.chaos.*}.
   */
  private Map<String, String> runProperties(
      Database db,
      String bootstrap,
      String sessionTimeoutMs,
      Path crashPointsArmed,
      Map<String, String> extra) {
    Map<String, String> properties = serviceProperties(db, bootstrap, sessionTimeoutMs, extra);
    if (options.crashPointProbability() > 0) {
      properties.put("iox.chaos.arming-file", crashPointsArmed.toString());
      for (String point :
          List.of("MID_HANDLER", "AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT", "RELAY_AFTER_PUBLISH")) {
        properties.put(
            "iox.chaos.crash-points." + point, String.valueOf(options.crashPointProbability()));
      }
    }
    if (!options.dedup()) {
      properties.put("iox.chaos.dedup-off", "true");
    }
    return properties;
  }

  private static Map<String, String> serviceProperties(
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
    properties.put("inbox-outbox.retention.enabled", "false");
    properties.put("management.endpoints.web.exposure.include", "health,metrics");
    properties.put("management.endpoint.health.show-details", "always");
    properties.put("spring.main.banner-mode", "off");
    // Where each new relay leader resumes (stored offset, slot position, the restart search) is in
    // the logs: a few lines per leader change, and what explained the one run that lost a batch.
    properties.put("logging.level.io.debezium.connector.postgresql", "INFO");
    properties.putAll(extra);
    return properties;
  }

  private void killWhileLoading(
      List<ServiceProcess> all,
      Future<?> producing,
      LoadProducer load,
      Database ordersDb,
      Instant loadStarted,
      ExecutorService restarts)
      throws Exception {
    Instant nextKill = Instant.now().plus(killInterval());
    Instant nextSample = Instant.now();
    while (!producing.isDone() || totalKills() < options.minKills()) {
      Instant now = Instant.now();
      if (!now.isBefore(nextKill)) {
        ServiceProcess victim;
        synchronized (this) {
          victim = chooseVictim(all);
          if (victim != null) {
            killedByUs.add(victim);
            victim.kill();
            restarts.submit(() -> restartLater(victim));
          }
        }
        // A kill that found no eligible victim is due again as soon as one is.
        nextKill = victim != null ? now.plus(killInterval()) : now.plusMillis(250);
      }
      if (!now.isBefore(nextSample)) {
        sample(load, ordersDb, loadStarted);
        nextSample = now.plusSeconds(1);
      }
      Thread.sleep(50);
      if (Duration.between(loadStarted, now).compareTo(Duration.ofMinutes(10)) > 0) {
        break; // a broken setup must not hang a CI run
      }
    }
  }

  /**
   * A victim is an instance that serves (health UP: consumers and relay running), or one that has
   * been starting for at least {@link #STARTING_VICTIM_MIN_AGE}: past the JVM's own start, into the
   * application's (on an idle machine it migrates, joins its groups and competes for the relay slot
   * by then; under load it may still be creating beans), so a kill there is a real crash during
   * start-up. An instance killed during start-up must serve before it can be killed again, so one
   * fresh JVM is not killed over and over to make up the count. Never the last serving instance of
   * a service: the run measures recovery, not an outage.
   */
  private ServiceProcess chooseVictim(List<ServiceProcess> all) {
    all.stream().filter(ServiceProcess::ready).forEach(killedDuringStartUp::remove);
    List<ServiceProcess> alive =
        all.stream()
            .filter(ServiceProcess::alive)
            .filter(
                service ->
                    service.ready()
                        || (service.upFor().compareTo(STARTING_VICTIM_MIN_AGE) >= 0
                            && !killedDuringStartUp.contains(service)))
            .filter(this::hasServingSibling)
            .toList();
    if (alive.isEmpty()) {
      return null;
    }
    if (random.nextDouble() < 0.3) {
      List<ServiceProcess> leaders = alive.stream().filter(ServiceProcess::leadsRelay).toList();
      if (!leaders.isEmpty()) {
        ServiceProcess leader = leaders.get(random.nextInt(leaders.size()));
        record("relay-leader", leader);
        return leader;
      }
    }
    ServiceProcess victim = alive.get(random.nextInt(alive.size()));
    record("random", victim);
    return victim;
  }

  private boolean hasServingSibling(ServiceProcess service) {
    List<ServiceProcess> siblings =
        orderServices.contains(service) ? orderServices : paymentServices;
    return siblings.stream().anyMatch(other -> other != service && other.alive() && other.ready());
  }

  private synchronized void record(String kind, ServiceProcess victim) {
    kills.get(kind).incrementAndGet();
    // A crash point fires inside a handler or the relay: that instance was serving by definition.
    boolean serving = kind.equals("crash-point") || victim.ready();
    if (serving) {
      killsOfServingInstances.incrementAndGet();
    } else {
      killedDuringStartUp.add(victim);
    }
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("atMillis", System.currentTimeMillis());
    entry.put("kind", kind);
    entry.put("process", victim.name());
    entry.put("serving", serving);
    killLog.add(entry);
  }

  private void restartLater(ServiceProcess victim) {
    try {
      Thread.sleep(options.restartDelay().toMillis());
      rememberDuplicates(victim);
      victim.start();
      killedByUs.remove(victim);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      out.println("restart of " + victim.name() + " failed: " + e.getMessage());
    }
  }

  /** Processes that halted at a crash point on their own: counted and restarted. */
  private synchronized void restartCrashed(List<ServiceProcess> all, ExecutorService restarts) {
    for (ServiceProcess service : all) {
      if (!service.alive() && !killedByUs.contains(service) && service.starts() > 0) {
        killedByUs.add(service);
        record("crash-point", service);
        restarts.submit(() -> restartLater(service));
      }
    }
  }

  private void awaitReady(List<ServiceProcess> services, Duration timeout)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (!services.stream().allMatch(ServiceProcess::ready)) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("services not ready within " + timeout + "; see the logs");
      }
      for (ServiceProcess service : services) {
        if (!service.alive()) {
          try {
            service.start();
          } catch (IOException e) {
            throw new IllegalStateException("cannot start " + service.name(), e);
          }
        }
      }
      Thread.sleep(250);
    }
  }

  /**
   * Waits until every consumer group is at lag 0, no outbox row is unpublished, no order waits for
   * its payment, every killed process is back up, and all of that holds for three samples in a row.
   * Restarts still under way overlap with the draining. Returns null once quiet, else the processes
   * that were not up when the timeout ran out.
   */
  private List<String> awaitQuiescence(
      Database ordersDb,
      Database paymentsDb,
      String bootstrap,
      LoadProducer load,
      Instant loadStarted,
      List<ServiceProcess> all)
      throws Exception {
    Instant deadline = Instant.now().plus(options.quiescenceTimeout());
    int quietSamples = 0;
    String last = "";
    List<String> down = List.of();
    try (KafkaLag kafka = new KafkaLag(bootstrap)) {
      while (Instant.now().isBefore(deadline)) {
        long lag = 0;
        for (String[] group : Verifier.CONSUMER_GROUPS) {
          lag += kafka.lag(group[0], group[1]);
        }
        long unpublished =
            Verifier.count(
                    ordersDb.dataSource(), "SELECT count(*) FROM outbox WHERE published_at IS NULL")
                + Verifier.count(
                    paymentsDb.dataSource(),
                    "SELECT count(*) FROM outbox WHERE published_at IS NULL");
        long open =
            Verifier.count(
                ordersDb.dataSource(), "SELECT count(*) FROM orders WHERE status = 'PLACED'");
        down = all.stream().filter(service -> !service.ready()).map(ServiceProcess::name).toList();
        String state =
            lag
                + "/"
                + unpublished
                + "/"
                + open
                + "/"
                + Verifier.count(paymentsDb.dataSource(), "SELECT count(*) FROM inbox");
        boolean quiet =
            lag == 0 && unpublished == 0 && open == 0 && down.isEmpty() && state.equals(last);
        quietSamples = quiet ? quietSamples + 1 : 0;
        last = state;
        if (quietSamples >= 3) {
          return null;
        }
        sample(load, ordersDb, loadStarted);
        Thread.sleep(1000);
      }
    }
    return down;
  }

  private void sample(LoadProducer load, Database ordersDb, Instant loadStarted) {
    long applied;
    long settled;
    // Settled is paid or payment failed: the end of the order -> payment -> provider -> webhook
    // chain. Both counts in one scan, once a second while the run is short of CPU.
    try (Connection connection = ordersDb.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT count(*), count(*) FILTER (WHERE status <> 'PLACED') FROM orders")) {
      row.next();
      applied = row.getLong(1);
      settled = row.getLong(2);
    } catch (Exception e) {
      applied = -1;
      settled = -1;
    }
    double absorbed = 0;
    for (ServiceProcess service :
        Stream.concat(orderServices.stream(), paymentServices.stream()).toList()) {
      double[] seen = duplicates.computeIfAbsent(service, s -> new double[2]);
      service
          .get("/actuator/metrics/iox.consumer.claims?tag=result:duplicate")
          .ifPresent(
              body -> {
                Matcher value = MEASUREMENT.matcher(body);
                if (value.find()) {
                  seen[1] = Double.parseDouble(value.group(1));
                }
              });
      absorbed += seen[0] + seen[1];
    }
    Map<String, Object> point = new LinkedHashMap<>();
    point.put("t", Duration.between(loadStarted, Instant.now()).toMillis() / 1000.0);
    point.put("sent", load.sent().records.get());
    point.put("orders", applied);
    point.put("settled", settled);
    point.put("duplicatesAbsorbed", (long) absorbed);
    point.put("kills", totalKills());
    synchronized (this) {
      timeline.add(point);
    }
    out.printf(
        "\r[%5.1fs] sent %d  orders %d  settled %d  duplicates absorbed %d  kills %d   ",
        (double) point.get("t"),
        point.get("sent"),
        applied,
        settled,
        (long) absorbed,
        totalKills());
    out.flush();
  }

  /** A restarted process starts counting from zero; keep what its previous life counted. */
  private void rememberDuplicates(ServiceProcess service) {
    double[] seen = duplicates.computeIfAbsent(service, s -> new double[2]);
    seen[0] += seen[1];
    seen[1] = 0;
  }

  private int totalKills() {
    return kills.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  private Map<String, Integer> killCounts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("total", totalKills());
    counts.put("whileServing", killsOfServingInstances.get());
    counts.put("duringStartUp", totalKills() - killsOfServingInstances.get());
    kills.forEach((kind, count) -> counts.put(kind, count.get()));
    return counts;
  }

  private Duration killInterval() {
    long min = options.killIntervalMin().toMillis();
    long max = options.killIntervalMax().toMillis();
    return Duration.ofMillis(min + (long) (random.nextDouble() * Math.max(0, max - min)));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
