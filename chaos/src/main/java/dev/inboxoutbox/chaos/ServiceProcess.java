package dev.inboxoutbox.chaos;

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

/**
 * One service instance as a real child process ({@code java -jar <service>-exec.jar}), on a fixed
 * HTTP port that survives restarts. Killing it is SIGKILL: no shutdown hook, no offset commit.
 */
final class ServiceProcess {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  private final String name;
  private final Path jar;
  private final int port;
  private final Map<String, String> properties;
  private final Path log;
  private Process process;
  private int starts;

  ServiceProcess(String name, Path jar, int port, Map<String, String> properties, Path logDirectory) {
    this.name = name;
    this.jar = jar;
    this.port = port;
    this.properties = Map.copyOf(properties);
    this.log = logDirectory.resolve(name + ".log");
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  synchronized void start() throws IOException {
    if (alive()) {
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Fast start-up matters more than peak speed: these JVMs are killed every few seconds.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-Xss512k");
    command.add("-Xmx384m");
    command.add("-jar");
    command.add(jar.toString());
    command.add("--server.port=" + port);
    properties.forEach((key, value) -> command.add("--" + key + "=" + value));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    process = builder.start();
    starts++;
  }

  /** SIGKILL, like the OOM killer or a pulled plug. */
  synchronized void kill() {
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

  synchronized int starts() {
    return starts;
  }

  /** Exit code of a process that died on its own (a crash point), or null. */
  synchronized Integer exitCode() {
    return process != null && !process.isAlive() ? process.exitValue() : null;
  }

  boolean ready() {
    return get("/actuator/health").map(body -> body.contains("\"status\":\"UP\"")).orElse(false);
  }

  /** Whether this instance currently leads its database's relay. */
  boolean leadsRelay() {
    return get("/actuator/health").map(body -> body.contains("\"state\":\"RUNNING\"")).orElse(false);
  }

  java.util.Optional<String> get(String path) {
    if (!alive()) {
      return java.util.Optional.empty();
    }
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
