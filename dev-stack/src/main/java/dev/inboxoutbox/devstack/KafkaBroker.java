package dev.inboxoutbox.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One broker of the run's cluster as its own JVM ({@link KafkaBrokerMain}), combined broker and
 * controller, so that a kill is a SIGKILL of a real process: no controlled shutdown, no leadership
 * handed over, page cache kept, as when the OOM killer or a host failure takes a broker.
 */
public final class KafkaBroker {

  /** Small heap, C1 only and serial GC: a broker of a chaos run is light, the CPU is not. */
  private static final List<String> JVM_OPTIONS =
      List.of(
          "-Xms128m",
          "-Xmx384m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-Xss512k",
          "-Djava.awt.headless=true");

  private static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(2);

  private final int nodeId;
  private final int port;
  private final Path properties;
  private final String clusterId;
  private final Path log;
  private Process process;

  KafkaBroker(
      int nodeId,
      int port,
      int controllerPort,
      Optional<TcpProxy> proxy,
      String voters,
      String clusterId,
      Map<String, String> clusterSettings,
      Path directory) {
    this.nodeId = nodeId;
    this.port = port;
    this.clusterId = clusterId;
    this.log = directory.resolve("broker-" + nodeId + ".log");
    Map<String, String> settings = new java.util.LinkedHashMap<>(clusterSettings);
    settings.put("process.roles", "broker,controller");
    settings.put("node.id", String.valueOf(nodeId));
    settings.put("controller.quorum.voters", voters);
    String listeners =
        "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort;
    String advertised = "PLAINTEXT://127.0.0.1:" + port;
    String protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
    if (proxy.isPresent()) {
      // Clients bootstrapped through the proxy are told to reach every broker through its proxy;
      // the brokers, the controllers and the run's own clients stay on the direct listener.
      listeners += ",PROXIED://" + proxy.get().upstreamHostAndPort();
      advertised += ",PROXIED://" + proxy.get().hostAndPort();
      protocols += ",PROXIED:PLAINTEXT";
    }
    settings.put("listeners", listeners);
    settings.put("advertised.listeners", advertised);
    settings.put("controller.listener.names", "CONTROLLER");
    settings.put("inter.broker.listener.name", "PLAINTEXT");
    settings.put("listener.security.protocol.map", protocols);
    settings.put("log.dirs", directory.resolve("broker-" + nodeId + "-data").toString());
    try {
      this.properties =
          Files.writeString(
              directory.resolve("broker-" + nodeId + ".properties"),
              settings.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining("\n", "", "\n")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the settings of broker " + nodeId, e);
    }
  }

  /**
   * Trains the class-data archive brokers start with (see {@link ExtractedApplication}): this
   * broker, alone, started until it listens, then stopped. Its settings must make it a cluster of
   * one.
   */
  void trainClassDataArchive(ExtractedApplication application)
      throws IOException, InterruptedException {
    application.train(
        KafkaBrokerMain.class.getName(),
        JVM_OPTIONS,
        List.of(properties.toString(), clusterId),
        () -> accepts(port),
        TRAINING_TIMEOUT,
        log);
  }

  public int nodeId() {
    return nodeId;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  public synchronized void start() throws IOException {
    if (alive()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.addAll(ChildJvm.mainClass(KafkaBrokerMain.class.getName()));
    command.add(properties.toString());
    command.add(clusterId);
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
  }

  /** Its process now (a restarted broker's new one); empty before its first start. */
  public synchronized Optional<ProcessHandle> process() {
    return Optional.ofNullable(process).map(Process::toHandle);
  }

  /** SIGKILL. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** Whether its client listener accepts connections: it does once the broker has started. */
  boolean listening() {
    return alive() && accepts(port);
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
