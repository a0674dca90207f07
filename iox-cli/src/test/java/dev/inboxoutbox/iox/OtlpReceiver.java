package dev.inboxoutbox.iox;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * A collector's OTLP/HTTP trace endpoint ({@code POST /v1/traces}, protobuf), keeping every span it
 * receives: what an application's OpenTelemetry exporter talks to.
 */
final class OtlpReceiver implements AutoCloseable {

  /** One received span, its ids in hex. */
  record Span(
      String service,
      String traceId,
      String spanId,
      String parentSpanId,
      String name,
      String kind,
      Map<String, String> attributes) {

    String attribute(String key) {
      return attributes.get(key);
    }
  }

  private final HttpServer server;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    server.createContext(
        "/v1/traces",
        exchange -> {
          try (exchange;
              InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            try {
              ExportTraceServiceRequest.parseFrom(body).getResourceSpansList().forEach(this::keep);
              exchange.sendResponseHeaders(200, -1);
            } catch (IOException | RuntimeException | LinkageError e) {
              failures.add(e);
              exchange.sendResponseHeaders(400, -1);
            }
          }
        });
    server.start();
  }

  URI endpoint() {
    return URI.create("http://localhost:" + server.getAddress().getPort() + "/v1/traces");
  }

  /** What could not be read as an export request. */
  List<Throwable> failures() {
    return List.copyOf(failures);
  }

  List<Span> spans() {
    return List.copyOf(spans);
  }

  private void keep(ResourceSpans resourceSpans) {
    String service =
        attributes(resourceSpans.getResource().getAttributesList()).get("service.name");
    HexFormat hex = HexFormat.of();
    for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
      for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
        spans.add(
            new Span(
                service,
                hex.formatHex(span.getTraceId().toByteArray()),
                hex.formatHex(span.getSpanId().toByteArray()),
                hex.formatHex(span.getParentSpanId().toByteArray()),
                span.getName(),
                span.getKind().name(),
                attributes(span.getAttributesList())));
      }
    }
  }

  private static Map<String, String> attributes(List<KeyValue> values) {
    return values.stream()
        .collect(
            Collectors.toMap(
                KeyValue::getKey,
                value -> value.getValue().getStringValue(),
                (first, second) -> first,
                java.util.LinkedHashMap::new));
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
