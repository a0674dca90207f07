package dev.inboxoutbox.devstack.connect;

import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.devstack.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * One Kafka Connect worker in distributed mode ({@code ConnectDistributed}) as its own JVM, so that
 * a stop is a real SIGTERM and a kill a real SIGKILL: no offsets flushed, no group left, the
 * replication connection cut by the operating system. Start it again with {@link #start()}: same
 * settings, same REST port, same group.
 *
 * <p>The worker runs from {@code classPath}, a stock worker's jars (connect-runtime, connect-json,
 * an SLF4J binding) without the connector's, and loads connectors from {@code plugin.path} only, as
 * an installed Kafka Connect does.
 */
public final class ConnectWorker implements AutoCloseable {

  /** Small heap, C1 only and serial GC: tests run several workers on two cores. */
  public static final List<String> TEST_JVM_OPTIONS =
      List.of(
          "-Xms64m",
          "-Xmx512m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-Djava.awt.headless=true");

  private static final Duration START_PATIENCE = Duration.ofSeconds(90);

  private final String name;
  private final String classPath;
  private final List<String> jvmOptions;
  private final Map<String, String> environment;
  private final Path properties;
  private final Path logConfiguration;
  private final Path log;
  private final String workerId;
  private final ConnectRest rest;
  private Process process;

  /**
   * A worker with {@link #TEST_JVM_OPTIONS}.
   *
   * @param settings the worker's properties; {@code listeners} and {@code rest.advertised.*} are
   *     set here to a free loopback port
   * @param environment variables the worker process sees, for {@code ${env:...}} in connector
   *     configurations
   */
  public ConnectWorker(
      String name,
      String classPath,
      Map<String, String> settings,
      Map<String, String> environment,
      Path directory) {
    this(name, classPath, TEST_JVM_OPTIONS, settings, environment, directory);
  }

  /**
   * A worker whose JVM runs with {@code jvmOptions}: a benchmark gives it the JIT and heap a
   * production worker has, not the tests' C1-only small heap.
   */
  public ConnectWorker(
      String name,
      String classPath,
      List<String> jvmOptions,
      Map<String, String> settings,
      Map<String, String> environment,
      Path directory) {
    this.name = name;
    this.classPath = classPath;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.environment = Map.copyOf(environment);
    int port = freePort();
    Map<String, String> all = new LinkedHashMap<>(settings);
    all.put("listeners", "http://127.0.0.1:" + port);
    all.put("rest.advertised.host.name", "127.0.0.1");
    all.put("rest.advertised.port", String.valueOf(port));
    try {
      Files.createDirectories(directory);
      this.properties =
          Files.writeString(
              directory.resolve(name + ".properties"),
              all.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining("\n", "", "\n")));
      this.log = directory.resolve(name + ".log");
      this.logConfiguration =
          Files.writeString(directory.resolve(name + "-logback.xml"), logbackConfiguration(log));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the settings of worker " + name, e);
    }
    this.workerId = "127.0.0.1:" + port;
    this.rest = new ConnectRest("http://" + workerId);
  }

  /** A worker's settings file as {@link #ConnectWorker}'s {@code settings}. */
  public static Map<String, String> settingsFile(Path file) {
    Properties properties = new Properties();
    try (var in = Files.newBufferedReader(file)) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    properties.stringPropertyNames().stream()
        .sorted()
        .forEach(key -> settings.put(key, properties.getProperty(key)));
    return settings;
  }

  /** Starts the worker and waits until its REST API answers for the group. */
  public synchronized ConnectWorker start() {
    if (alive()) {
      return this;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Dlogback.configurationFile=" + logConfiguration);
    command.add("-cp");
    command.add(classPath);
    command.add("org.apache.kafka.connect.cli.ConnectDistributed");
    command.add(properties.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start worker " + name, e);
    }
    await("worker " + name + " serves its REST API (log: " + log + ")")
        .atMost(START_PATIENCE)
        .pollInterval(Duration.ofMillis(250))
        .failFast("worker " + name + " exited (log: " + log + ")", () -> !process.isAlive())
        .until(rest::ready);
    return this;
  }

  /** SIGTERM, then waits for the worker's orderly shutdown (tasks stopped, offsets flushed). */
  public synchronized void stop() {
    if (alive()) {
      process.destroy();
      waitForExit();
    }
  }

  /** SIGKILL: nothing flushed, nothing handed over. */
  public synchronized void kill() {
    if (alive()) {
      process.destroyForcibly();
      waitForExit();
    }
  }

  public synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  public ConnectRest rest() {
    return rest;
  }

  public String name() {
    return name;
  }

  /** How the group names this worker in a connector's status: its advertised REST address. */
  public String workerId() {
    return workerId;
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() {
    kill();
  }

  @Override
  public String toString() {
    return "ConnectWorker[" + name + " at " + rest.baseUrl() + "]";
  }

  private void waitForExit() {
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int freePort() {
    try {
      return FreePorts.belowEphemeralRange();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port for a worker", e);
    }
  }

  /** INFO for Connect and the connectors, to the worker's own log file. */
  private static String logbackConfiguration(Path log) {
    return """
        <configuration>
          <appender name="FILE" class="ch.qos.logback.core.FileAppender">
            <file>%s</file>
            <encoder><pattern>%%d{HH:mm:ss.SSS} %%-5level [%%thread] %%logger{36} - %%msg%%n</pattern></encoder>
          </appender>
          <logger name="org.apache.kafka.clients" level="WARN"/>
          <logger name="org.apache.kafka.common" level="WARN"/>
          <logger name="org.eclipse.jetty" level="WARN"/>
          <logger name="org.reflections" level="WARN"/>
          <root level="INFO"><appender-ref ref="FILE"/></root>
        </configuration>
        """
        .formatted(log);
  }
}
