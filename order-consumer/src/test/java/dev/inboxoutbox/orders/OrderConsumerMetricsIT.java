package dev.inboxoutbox.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The metrics a Prometheus server scrapes from the service, and the Grafana dashboard the compose
 * stack provisions (compose/grafana/dashboards): a query naming a meter that is not served shows an
 * empty panel instead of failing, so the dashboard is checked against the real scrape here.
 */
class OrderConsumerMetricsIT {

  private static final Path DASHBOARD = Path.of("../compose/grafana/dashboards/inbox-outbox.json");

  /** Labels Prometheus adds to every scraped series; a dashboard may group by them. */
  private static final Set<String> TARGET_LABELS = Set.of("job", "instance");

  private static final Pattern SAMPLE_LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+.*$");
  private static final Pattern LABEL_NAME = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
  private static final Pattern IOX_METRIC = Pattern.compile("\\biox_[a-z0-9_]+");
  private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");

  private static ConfigurableApplicationContext app;
  private static URI base;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    app =
        new SpringApplicationBuilder(OrderConsumerApplication.class)
            .properties(
                "iox.dev-stack.database=orders_metrics_it_"
                    + UUID.randomUUID().toString().substring(0, 8))
            // An argument: a default property loses to application.properties' port 8081.
            .run("--server.port=0");
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    base = URI.create("http://localhost:" + port);
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void thePrometheusEndpointServesTheIoxMetersInTheTextFormat() throws Exception {
    HttpResponse<String> scrape = scrape();

    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
    Map<String, Set<String>> served = seriesLabels(scrape.body());
    assertThat(served)
        .containsKeys(
            "iox_consumer_claims_total",
            "iox_consumer_dead_letters_total",
            "iox_relay_lag_seconds",
            "iox_relay_slot_lag_bytes",
            "iox_retention_overdue_seconds");
    assertThat(served.get("iox_consumer_claims_total")).contains("operation", "result");
    assertThat(served.get("iox_consumer_dead_letters_total")).contains("operation", "reason");
  }

  @Test
  void everyMeterAndLabelTheGrafanaDashboardQueriesIsServed() throws Exception {
    Map<String, Set<String>> served = seriesLabels(scrape().body());
    JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
    List<String> queries = dashboard.findValues("expr").stream().map(JsonNode::asString).toList();
    String variableQuery = dashboard.path("templating").findValue("definition").asString();

    assertThat(queries).hasSizeGreaterThanOrEqualTo(12);
    for (String query : queries) {
      Set<String> meters = ioxMeters(query);
      assertThat(meters).as("iox meters in %s", query).isNotEmpty();
      assertThat(served)
          .as("served meters, for %s", query)
          .containsKeys(meters.toArray(String[]::new));
      Set<String> labels = new HashSet<>(TARGET_LABELS);
      meters.forEach(meter -> labels.addAll(served.get(meter)));
      assertThat(groupingLabels(query)).as("grouping labels of %s", query).isSubsetOf(labels);
    }
    assertThat(served).containsKeys(ioxMeters(variableQuery).toArray(String[]::new));
  }

  private HttpResponse<String> scrape() throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve("/actuator/prometheus")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Each series name in a Prometheus text exposition, with the label names it carries. */
  private static Map<String, Set<String>> seriesLabels(String exposition) {
    Map<String, Set<String>> series = new HashMap<>();
    for (String line : exposition.lines().toList()) {
      Matcher sample = SAMPLE_LINE.matcher(line);
      if (line.startsWith("#") || !sample.matches()) {
        continue;
      }
      Set<String> labels = series.computeIfAbsent(sample.group(1), name -> new HashSet<>());
      if (sample.group(2) != null) {
        LABEL_NAME.matcher(sample.group(2)).results().forEach(label -> labels.add(label.group(1)));
      }
    }
    return series;
  }

  private static Set<String> ioxMeters(String query) {
    Set<String> meters = new HashSet<>();
    IOX_METRIC.matcher(query).results().forEach(meter -> meters.add(meter.group()));
    return meters;
  }

  private static Set<String> groupingLabels(String query) {
    Set<String> labels = new HashSet<>();
    GROUPING
        .matcher(query)
        .results()
        .forEach(
            grouping -> {
              for (String label : grouping.group(1).split(",")) {
                labels.add(label.strip());
              }
            });
    return labels;
  }
}
