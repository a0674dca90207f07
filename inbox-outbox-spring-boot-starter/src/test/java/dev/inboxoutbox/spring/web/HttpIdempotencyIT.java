package dev.inboxoutbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.spring.DevStackApplication;
import dev.inboxoutbox.testing.jdbc.Rows;
import dev.inboxoutbox.testing.tracing.InMemoryTracing;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.ServerHttpObservationFilter;

/** {@link IdempotentEndpoint} on a real servlet container, PostgreSQL and the starter's wiring. */
class HttpIdempotencyIT {

  private static final InMemoryTracing TRACING = new InMemoryTracing();
  private static DevStackApplication app;
  private static URI base;
  private final HttpClient http = HttpClient.newHttpClient();

  /** Set by a test to hold a request inside the endpoint, its claim open. */
  private static volatile CountDownLatch entered;

  private static volatile CountDownLatch release;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Widgets.class)
  static class App {
    /** The application traces its requests (OpenTelemetry behind Micrometer). */
    @Bean
    ObservationRegistry observationRegistry() {
      return TRACING.registry();
    }

    @Bean
    ServerHttpObservationFilter requestObservations(ObservationRegistry observations) {
      return new ServerHttpObservationFilter(observations);
    }

    /** Stands in for Spring Security: the principal named by a header. */
    @Bean
    Filter testUser() {
      return (request, response, chain) -> {
        String user = ((HttpServletRequest) request).getHeader("X-Test-User");
        chain.doFilter(
            user == null
                ? request
                : new HttpServletRequestWrapper((HttpServletRequest) request) {
                  @Override
                  public Principal getUserPrincipal() {
                    return () -> user;
                  }
                },
            response);
      };
    }
  }

  @RestController
  static class Widgets {
    private final JdbcClient jdbc;

    Widgets(JdbcClient jdbc) {
      this.jdbc = jdbc;
    }

    @PostMapping("/widgets")
    @IdempotentEndpoint
    ResponseEntity<?> create(
        IdempotencyKey key, @RequestBody Map<String, String> widget, HttpServletResponse response)
        throws InterruptedException {
      String name = widget.get("name");
      long id =
          jdbc.sql("INSERT INTO widgets (name, idempotency_key) VALUES (?, ?) RETURNING id")
              .params(name, key.value())
              .query(Long.class)
              .single();
      switch (name) {
        case "hold" -> {
          entered.countDown();
          release.await();
        }
        case "boom" -> throw new IllegalStateException("the endpoint failed after its write");
        case "boom-after-header" -> {
          response.setHeader("Location", "/widgets/" + id);
          throw new IllegalStateException("the endpoint failed after setting a header");
        }
        case "fails-at-commit" ->
            // A second row with the same deferred-unique value: the commit, not the INSERT, fails.
            jdbc.sql("INSERT INTO widgets (name, idempotency_key, at_commit) VALUES (?, ?, 1)")
                .params(name, key.value())
                .update();
        case "unavailable" -> {
          return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
        }
        case "taken" -> {
          return ResponseEntity.status(HttpStatus.CONFLICT)
              .body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "name taken"));
        }
        default -> {}
      }
      return ResponseEntity.created(URI.create("/widgets/" + id))
          .body(Map.of("id", id, "name", name));
    }
  }

  @BeforeAll
  static void start() throws SQLException {
    app =
        DevStackApplication.start(
            App.class,
            WebApplicationType.SERVLET,
            """
            CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL,
                                  idempotency_key text NOT NULL,
                                  at_commit int UNIQUE DEFERRABLE INITIALLY DEFERRED)
            """,
            "server.port=0",
            "inbox-outbox.http.tenant-header=X-Tenant",
            "inbox-outbox.retention.enabled=false");
    base =
        URI.create(
            "http://localhost:"
                + ((WebServerApplicationContext) app.context()).getWebServer().getPort());
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aRepeatGetsTheStoredAnswerMarkedReplayedWithoutRunningTheEndpointAgain() throws Exception {
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = post(key, "{\"name\":\"gear\"}");
    HttpResponse<String> repeat = post(key, "{ \"name\" : \"gear\" }");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(first.headers().firstValue("Location"))
        .hasValueSatisfying(l -> assertThat(l).contains("/widgets/"));
    assertThat(repeat.statusCode()).isEqualTo(201);
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(repeat.body()).isEqualTo(first.body()).contains("\"name\":\"gear\"");
    assertThat(repeat.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(repeat.headers().firstValue("Content-Type"))
        .isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox WHERE idempotency_key = ? AND operation = 'POST /widgets'"
                    + " AND status = 'COMPLETED' AND outcome_code = 201",
                key))
        .isEqualTo(1);
  }

  @Test
  void theRequestsSpanSaysWhatTheInboxDecided() throws Exception {
    String key = UUID.randomUUID().toString();

    post(key, "{\"name\":\"traced\"}");
    post(key, "{\"name\":\"traced\"}");
    post(key, "{\"name\":\"other\"}");

    List<String> decisions =
        await("the three requests' spans")
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    TRACING.finishedSpans().stream()
                        .filter(span -> span.getKind() == SpanKind.SERVER)
                        .filter(span -> key.equals(requestKey(span)))
                        .map(
                            span ->
                                span.getAttributes().get(AttributeKey.stringKey("inbox.decision")))
                        .toList(),
                spans -> spans.size() == 3);
    assertThat(decisions).containsExactly("new", "duplicate", "conflict");
  }

  @Test
  void aKeyReusedWithAnotherBodyIs422AndChangesNothing() throws Exception {
    String key = UUID.randomUUID().toString();
    post(key, "{\"name\":\"bolt\"}");

    HttpResponse<String> reused = post(key, "{\"name\":\"nut\"}");

    assertThat(reused.statusCode()).isEqualTo(422);
    assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(reused.body())
        .contains("\"type\":\"urn:inbox-outbox:problem:idempotency-key-reused\"");
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(1);
  }

  @Test
  void aMissingOrInvalidKeyOrBodyIs400SayingWhy() throws Exception {
    HttpResponse<String> missing = post(null, "{\"name\":\"x\"}");
    HttpResponse<String> tooLong = post("k".repeat(256), "{\"name\":\"x\"}");
    HttpResponse<String> badJson = post(UUID.randomUUID().toString(), "{\"name\":");

    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.headers().firstValue("Content-Type")).contains("application/problem+json");
    assertThat(missing.body())
        .contains("\"type\":\"urn:inbox-outbox:problem:invalid-idempotency-key\"")
        .contains("\"reason\":\"MISSING\"")
        .contains("Idempotency-Key header");
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body()).contains("\"reason\":\"TOO_LONG\"");
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(badJson.body())
        .contains("\"type\":\"urn:inbox-outbox:problem:invalid-request-body\"");
    assertThat(count("SELECT count(*) FROM widgets WHERE name = 'x'")).isZero();
  }

  @Test
  void aRepeatWhileTheFirstRequestIsInFlightIs409WithRetryAfter() throws Exception {
    String key = UUID.randomUUID().toString();
    entered = new CountDownLatch(1);
    release = new CountDownLatch(1);
    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync(request(key, "{\"name\":\"hold\"}"), HttpResponse.BodyHandlers.ofString());
    try {
      assertThat(entered.await(60, TimeUnit.SECONDS))
          .as("the first request reached the endpoint")
          .isTrue();

      HttpResponse<String> concurrent = post(key, "{\"name\":\"hold\"}");

      assertThat(concurrent.statusCode()).isEqualTo(409);
      assertThat(concurrent.headers().firstValue("Retry-After")).contains("1");
      assertThat(concurrent.body())
          .contains("\"type\":\"urn:inbox-outbox:problem:request-in-progress\"");
    } finally {
      release.countDown();
    }
    assertThat(first.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    HttpResponse<String> after = post(key, "{\"name\":\"hold\"}");
    assertThat(after.statusCode()).isEqualTo(201);
    assertThat(after.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(1);
  }

  @Test
  void anEndpointThatThrowsLeavesNeitherItsWriteNorTheClaim() throws Exception {
    String key = UUID.randomUUID().toString();

    HttpResponse<String> failed = post(key, "{\"name\":\"boom\"}");

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isZero();
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key = ?", key)).isZero();
    HttpResponse<String> retry = post(key, "{\"name\":\"boom\"}");
    assertThat(retry.statusCode()).as("a retry runs the endpoint again").isEqualTo(500);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
  }

  @Test
  void aFailedEndpointOrCommitAnswersWithoutTheHeadersTheEndpointSet() throws Exception {
    execute("INSERT INTO widgets (name, idempotency_key, at_commit) VALUES ('seed', 'seed', 1)");
    for (String name : List.of("boom-after-header", "fails-at-commit")) {
      String key = UUID.randomUUID().toString();

      HttpResponse<String> failed = post(key, "{\"name\":\"" + name + "\"}");

      assertThat(failed.statusCode()).as(name).isEqualTo(500);
      assertThat(failed.headers().firstValue("Location"))
          .as("%s: the Location of a widget that does not exist", name)
          .isEmpty();
      assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isZero();
      assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key = ?", key)).isZero();
    }
  }

  @Test
  void a5xxAnswerRollsBackAndIsNotStored() throws Exception {
    String key = UUID.randomUUID().toString();

    HttpResponse<String> unavailable = post(key, "{\"name\":\"unavailable\"}");

    assertThat(unavailable.statusCode()).isEqualTo(503);
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isZero();
    assertThat(count("SELECT count(*) FROM inbox WHERE idempotency_key = ?", key)).isZero();
  }

  @Test
  void a4xxAnswerIsStoredWithItsWritesAndReplayed() throws Exception {
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = post(key, "{\"name\":\"taken\"}");
    HttpResponse<String> repeat = post(key, "{\"name\":\"taken\"}");

    assertThat(first.statusCode()).isEqualTo(409);
    assertThat(repeat.statusCode()).isEqualTo(409);
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(repeat.body()).isEqualTo(first.body()).contains("name taken");
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM inbox WHERE idempotency_key = ? AND status = 'FAILED'", key))
        .isEqualTo(1);
  }

  @Test
  void oneKeyFromTwoPrincipalsOrTwoTenantsIsTwoRequests() throws Exception {
    String key = UUID.randomUUID().toString();
    String body = "{\"name\":\"scoped\"}";

    HttpResponse<String> alice = post(key, body, Map.of("X-Test-User", "alice"));
    HttpResponse<String> bob = post(key, body, Map.of("X-Test-User", "bob"));
    HttpResponse<String> aliceAgain = post(key, body, Map.of("X-Test-User", "alice"));
    HttpResponse<String> aliceInTenant =
        post(key, body, Map.of("X-Test-User", "alice", "X-Tenant", "t-2"));

    assertThat(alice.statusCode()).isEqualTo(201);
    assertThat(bob.statusCode()).isEqualTo(201);
    assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(bob.body()).isNotEqualTo(alice.body());
    assertThat(aliceAgain.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(aliceInTenant.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(3);
    assertThat(
            count(
                "SELECT count(DISTINCT (tenant, principal)) FROM inbox WHERE idempotency_key = ?",
                key))
        .isEqualTo(3);
  }

  @Test
  void aRepeatAfterRetentionPrunedTheAnswerIsNotRunAgain() throws Exception {
    String key = UUID.randomUUID().toString();
    post(key, "{\"name\":\"pruned\"}");
    execute(
        "UPDATE inbox SET outcome_body = NULL, outcome_pruned_at = now() WHERE idempotency_key = ?",
        key);

    HttpResponse<String> repeat = post(key, "{\"name\":\"pruned\"}");

    assertThat(repeat.statusCode()).isEqualTo(200);
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(repeat.body()).contains("\"status\":\"COMPLETED\"").contains("pruned by retention");
    assertThat(count("SELECT count(*) FROM widgets WHERE idempotency_key = ?", key)).isEqualTo(1);
  }

  @Test
  void configurationMetadataDescribesTheHttpProperties() throws Exception {
    try (InputStream metadata =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(metadata).isNotNull();
      assertThat(new String(metadata.readAllBytes(), StandardCharsets.UTF_8))
          .contains("\"inbox-outbox.http.tenant-header\"")
          .contains("\"inbox-outbox.http.replayed-headers\"")
          .contains("Request header carrying the idempotency key");
    }
  }

  private static String requestKey(SpanData span) {
    return span.getAttributes().get(AttributeKey.stringKey("inbox.idempotency_key"));
  }

  private HttpResponse<String> post(String key, String body) throws Exception {
    return post(key, body, Map.of());
  }

  private HttpResponse<String> post(String key, String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = requestBuilder(key, body);
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(String key, String body) {
    return requestBuilder(key, body).build();
  }

  private static HttpRequest.Builder requestBuilder(String key, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve("/widgets"))
            .header("Content-Type", "application/json")
            .timeout(
                Duration.ofSeconds(60)) // a request stuck behind a claim fails instead of hanging
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("Idempotency-Key", key);
    }
    return request;
  }

  private static void execute(String sql, Object... parameters) {
    try (Connection connection = app.database().connect();
        var statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long count(String sql, Object... parameters) {
    return Rows.count(app.database().dataSource(), sql, parameters);
  }
}
