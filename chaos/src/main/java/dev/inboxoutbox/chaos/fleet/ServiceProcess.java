package dev.inboxoutbox.chaos.fleet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * One service instance as a real child process ({@code java ... -jar <service>.jar}, see {@link
 * FastStartJar}), on a fixed HTTP port that survives restarts. Killing it is SIGKILL: no shutdown
 * hook, no offset commit.
 */
public final class ServiceProcess implements WebhookProxy.Target {

  private static final long READY_REUSE_NANOS = 1_000_000_000L;

  /** An idempotent consumer's assignment in the health details with at least one partition. */
  private static final Pattern HELD_PARTITIONS = Pattern.compile("\"assignment\":\\{[^{}]*\\[\"");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  private final String name;
  private final FastStartJar jar;
  private final int port;
  private final Map<String, String> properties;
  private final Path log;
  private Process process;
  private int starts;
  private long startedAtNanos;
  private volatile boolean lastReady;
  private volatile boolean lastHeldPartitions;
  private volatile boolean servedInThisLife;
  private volatile long readyCheckedAtNanos;
  private volatile long partitionsCheckedAtNanos;

  public ServiceProcess(
      String name, FastStartJar jar, int port, Map<String, String> properties, Path logDirectory) {
    this.name = name;
    this.jar = jar;
    this.port = port;
    this.properties = Map.copyOf(properties);
    this.log = logDirectory.resolve(name + ".log");
  }

  public String name() {
    return name;
  }

  @Override
  public int port() {
    return port;
  }

  synchronized void start() throws IOException {
    if (alive()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(FastStartJar.JVM_OPTIONS);
    command.addAll(jar.launch());
    command.add("--server.port=" + port);
    properties.forEach((key, value) -> command.add("--" + key + "=" + value));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    process = builder.start();
    startedAtNanos = System.nanoTime();
    starts++;
    servedInThisLife = false;
    forgetReadiness();
  }

  /** SIGKILL, like the OOM killer or a pulled plug. */
  synchronized void kill() {
    forgetReadiness();
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Its process now, or the last one once it died; empty before its first start. */
  public synchronized java.util.Optional<ProcessHandle> process() {
    return java.util.Optional.ofNullable(process).map(Process::toHandle);
  }

  @Override
  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** A new or killed process has no reading yet: the next {@link #ready()} asks. */
  private void forgetReadiness() {
    lastReady = false;
    lastHeldPartitions = false;
    readyCheckedAtNanos = 0;
    partitionsCheckedAtNanos = 0;
  }

  /** How long the current process has been running; zero when it is not. */
  synchronized Duration upFor() {
    return alive() ? Duration.ofNanos(System.nanoTime() - startedAtNanos) : Duration.ZERO;
  }

  public synchronized int starts() {
    return starts;
  }

  /**
   * Whether the instance has served in this life and, at the last reading of its health, one of its
   * consumers held partitions: records to process while orders are in flight, and a batch's
   * transaction a kill interrupts. Whatever the health's overall status: while PostgreSQL or a
   * broker is down the health is DOWN, and the consumers still hold their partitions and the
   * batches they polled.
   */
  boolean servesPartitions() {
    if (!alive()) {
      return false;
    }
    if (!servedInThisLife) {
      ready();
    }
    long now = System.nanoTime();
    if (stale(partitionsCheckedAtNanos, now)) {
      // The consumers' own indicator: the whole health also checks the database and the brokers,
      // and during their outage it answers late or not at all.
      lastHeldPartitions =
          get("/actuator/health/idempotentConsumers")
              .map(ServiceProcess::holdsPartitions)
              .orElse(false);
      partitionsCheckedAtNanos = now;
    }
    return servedInThisLife && lastHeldPartitions;
  }

  /**
   * Whether a health body lists a partition in an idempotent consumer's assignment, for example
   * {@code "assignment":{"consumer-order-commands-1":["orders.commands-0"]}}.
   */
  static boolean holdsPartitions(String health) {
    return HELD_PARTITIONS.matcher(health).find();
  }

  /**
   * Whether a health body's overall status is UP; a component's own UP (the ping, the consumers)
   * says nothing while the database is DOWN.
   */
  static boolean up(String health) {
    try {
      return "UP".equals(JSON.readTree(health).path("status").asString());
    } catch (JacksonException e) {
      return false;
    }
  }

  /** Whether a reading taken at {@code checkedAtNanos} (0: none yet) is too old to reuse. */
  private static boolean stale(long checkedAtNanos, long now) {
    return checkedAtNanos == 0 || now - checkedAtNanos >= READY_REUSE_NANOS;
  }

  /** Whether the current (or, once dead, the last) process was seen serving at least once. */
  boolean servedInThisLife() {
    return servedInThisLife;
  }

  /** Exit code of a process that died on its own (a crash point), or null. */
  synchronized Integer exitCode() {
    return process != null && !process.isAlive() ? process.exitValue() : null;
  }

  /**
   * Whether the instance serves: health UP (consumers and relay started). Asked several times a
   * second by the kill loop and the progress sampler, so a reading is reused for a second: the
   * health endpoint checks the database and would otherwise eat CPU the services need.
   */
  @Override
  public boolean ready() {
    if (!alive()) {
      return false;
    }
    long now = System.nanoTime();
    if (!stale(readyCheckedAtNanos, now)) {
      return lastReady;
    }
    java.util.Optional<String> health = get("/actuator/health");
    lastReady = health.map(ServiceProcess::up).orElse(false);
    readyCheckedAtNanos = now;
    servedInThisLife |= lastReady;
    return lastReady;
  }

  /**
   * Whether this instance currently leads its database's relay. Asks the relay's indicator alone:
   * the whole health also checks the database and the Kafka cluster, which under load can outlast
   * the request's timeout and would count a leader as a standby.
   */
  boolean leadsRelay() {
    return alive() && leadsRelay(port);
  }

  /**
   * Whether the instance listening on {@code port} leads its relay; false while it does not answer.
   */
  static boolean leadsRelay(int port) {
    return get(port, "/actuator/health/outboxRelay")
        .map(body -> body.contains("\"state\":\"RUNNING\""))
        .orElse(false);
  }

  public java.util.Optional<String> get(String path) {
    return alive() ? get(port, path) : java.util.Optional.empty();
  }

  private static java.util.Optional<String> get(int port, String path) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return java.util.Optional.of(response.body());
    } catch (IOException e) {
      return java.util.Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return java.util.Optional.empty();
    }
  }
}
