package dev.inboxoutbox.testing.tracing;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.EventPublishingContextWrapper;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.micrometer.tracing.otel.bridge.Slf4JEventListener;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/**
 * OpenTelemetry behind a Micrometer {@link ObservationRegistry}, as Spring Boot wires it with
 * {@code micrometer-tracing-bridge-otel}: W3C propagation, trace and span ids in the MDC while a
 * span is in scope, and every finished span kept in memory for assertions.
 */
public final class InMemoryTracing implements AutoCloseable {

  /** Puts trace and span ids into the MDC when a span's scope opens, as Spring Boot does. */
  private static final Slf4JEventListener MDC = new Slf4JEventListener();

  static {
    // OpenTelemetry's context storage takes its wrappers once, before its first use in the JVM.
    ContextStorage.addWrapper(new EventPublishingContextWrapper(MDC::onEvent));
  }

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final io.opentelemetry.api.trace.Tracer otelTracer;
  private final ObservationRegistry registry = ObservationRegistry.create();

  public InMemoryTracing() {
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    otelTracer = otel.getTracer("inbox-outbox-test");
    OtelTracer tracer = new OtelTracer(otelTracer, new OtelCurrentTraceContext(), MDC::onEvent);
    OtelPropagator propagator = new OtelPropagator(otel.getPropagators(), otelTracer);
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
  }

  /** The registry to hand to the code under test. */
  public ObservationRegistry registry() {
    return registry;
  }

  /**
   * Starts and ends a span named {@code name} in a new trace, as a client that sends a request
   * would, and answers its W3C {@code traceparent}.
   */
  public String clientSpan(String name) {
    Span span = otelTracer.spanBuilder(name).startSpan();
    span.end();
    SpanContext context = span.getSpanContext();
    return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-01";
  }

  /** Every span finished so far, in the order they ended. */
  public List<SpanData> finishedSpans() {
    return exporter.getFinishedSpanItems();
  }

  /** The finished spans named {@code name} (an observation's contextual name). */
  public List<SpanData> spansNamed(String name) {
    return finishedSpans().stream().filter(span -> span.getName().equals(name)).toList();
  }

  @Override
  public void close() {
    provider.close();
  }
}
