package dev.inboxoutbox.benchmarks;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * A tracer as an application runs one: OpenTelemetry behind Micrometer, every span sampled and
 * handed to a batch span processor, whose exporter drops them (the bench measures the consumer's
 * price of tracing, not a collector's).
 */
final class BenchTracer implements AutoCloseable {

  private final SdkTracerProvider provider =
      SdkTracerProvider.builder()
          .setSampler(Sampler.alwaysOn())
          .addSpanProcessor(BatchSpanProcessor.builder(SpanExporter.composite()).build())
          .build();
  private final ObservationRegistry registry = ObservationRegistry.create();

  BenchTracer() {
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    io.opentelemetry.api.trace.Tracer otelTracer = otel.getTracer("iox-bench");
    OtelTracer tracer = new OtelTracer(otelTracer, new OtelCurrentTraceContext(), event -> {});
    OtelPropagator propagator = new OtelPropagator(otel.getPropagators(), otelTracer);
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
  }

  ObservationRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    provider.close();
  }
}
