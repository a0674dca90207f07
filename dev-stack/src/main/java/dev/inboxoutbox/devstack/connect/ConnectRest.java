package dev.inboxoutbox.devstack.connect;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A worker's REST API, as an operator uses it: create or update a connector, read its status,
 * restart, stop, resume, read and alter its offsets. A call answered with 409 (the group is
 * rebalancing) is tried again, as Connect asks.
 */
public final class ConnectRest {

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration REBALANCE_PATIENCE = Duration.ofSeconds(60);
  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private final String baseUrl;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public ConnectRest(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String baseUrl() {
    return baseUrl;
  }

  /** Whether the worker answers for its group (it does once it joined it). */
  public boolean ready() {
    try {
      return send(get("/connectors")).statusCode() == 200;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  /** {@code PUT /connectors/{name}/config}: creates the connector or replaces its configuration. */
  public void putConnector(String name, Map<String, String> config) {
    call("PUT", "/connectors/" + name + "/config", config);
  }

  public void deleteConnector(String name) {
    call("DELETE", "/connectors/" + name, null);
  }

  /** Restarts the connector and all its tasks, as {@code POST .../restart?includeTasks=true}. */
  public void restart(String name) {
    call("POST", "/connectors/" + name + "/restart?includeTasks=true&onlyFailed=false", null);
  }

  /** {@code PUT .../stop}: tasks shut down, offsets kept and then alterable. */
  public void stop(String name) {
    call("PUT", "/connectors/" + name + "/stop", null);
  }

  public void resume(String name) {
    call("PUT", "/connectors/" + name + "/resume", null);
  }

  public ConnectorStatus status(String name) {
    return JSON.readValue(
        call("GET", "/connectors/" + name + "/status", null), ConnectorStatus.class);
  }

  /** Waits until the connector and every one of its tasks run; a failed task fails the wait. */
  public ConnectorStatus awaitRunning(String name, Duration patience) {
    return await("connector " + name + " and its tasks running")
        .atMost(patience)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(ConnectCallException.class)
        .until(() -> status(name), ConnectorStatus::running);
  }

  /**
   * Waits until the connector and every one of its tasks run on {@code workerId}: after a worker
   * died, its tasks are reported running on it until the group reassigns them.
   */
  public ConnectorStatus awaitRunningOn(String name, String workerId, Duration patience) {
    return await("connector " + name + " and its tasks running on " + workerId)
        .atMost(patience)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(ConnectCallException.class)
        .until(
            () -> status(name),
            status ->
                status.running()
                    && workerId.equals(status.connector().workerId())
                    && status.tasks().stream().allMatch(task -> workerId.equals(task.workerId())));
  }

  /** Waits until the connector is stopped ({@link #stop}), so that its offsets can be altered. */
  public void awaitStopped(String name, Duration patience) {
    await("connector " + name + " stopped")
        .atMost(patience)
        .pollInterval(Duration.ofMillis(250))
        .ignoreExceptionsInstanceOf(ConnectCallException.class)
        .until(() -> "STOPPED".equals(status(name).connector().state()));
  }

  /** {@code GET .../offsets}: the source offsets the worker stored for the connector. */
  public List<SourceOffset> offsets(String name) {
    Offsets offsets =
        JSON.readValue(call("GET", "/connectors/" + name + "/offsets", null), Offsets.class);
    return offsets.offsets();
  }

  /** {@code PATCH .../offsets} of a stopped connector. */
  public void alterOffsets(String name, List<SourceOffset> offsets) {
    call("PATCH", "/connectors/" + name + "/offsets", new Offsets(offsets));
  }

  /** The body of a call answered with 2xx; 409 (rebalancing) is tried again. */
  private String call(String method, String path, Object body) {
    HttpRequest.BodyPublisher publisher =
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(CALL_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .method(method, publisher)
            .build();
    HttpResponse<String> response =
        await(method + " " + path + " outside a rebalance")
            .atMost(REBALANCE_PATIENCE)
            .pollInterval(Duration.ofMillis(500))
            .until(() -> send(request), answer -> answer.statusCode() != 409);
    if (response.statusCode() / 100 != 2) {
      throw new ConnectCallException(
          method + " " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(CALL_TIMEOUT).GET().build();
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted calling " + request.uri(), e);
    }
  }

  /** A call the worker answered with an error status. */
  public static final class ConnectCallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConnectCallException(String message) {
      super(message);
    }
  }

  /** {@code GET /connectors/{name}/status}. */
  public record ConnectorStatus(String name, State connector, List<TaskState> tasks, String type) {

    /** The connector and at least one task run; a failed task throws. */
    public boolean running() {
      if (tasks.stream().anyMatch(task -> "FAILED".equals(task.state()))) {
        throw new IllegalStateException("a task of " + name + " failed: " + tasks);
      }
      return "RUNNING".equals(connector.state())
          && !tasks.isEmpty()
          && tasks.stream().allMatch(task -> "RUNNING".equals(task.state()));
    }

    public record State(String state, @JsonProperty("worker_id") String workerId, String trace) {}

    public record TaskState(
        int id, String state, @JsonProperty("worker_id") String workerId, String trace) {}
  }

  /** One entry of a connector's offsets: a source partition and the offset stored for it. */
  public record SourceOffset(Map<String, Object> partition, Map<String, Object> offset) {}

  private record Offsets(List<SourceOffset> offsets) {}
}
