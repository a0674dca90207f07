package dev.inboxoutbox.outbox;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import java.util.HashMap;
import java.util.Map;

/**
 * Appends observed with Micrometer: inside an observed scope (an HTTP request, a consumed record),
 * an append is an {@code outbox.append} observation whose trace context, as the tracer propagates
 * it, becomes the {@code traceparent} and {@code tracestate} of the events that bring none. The
 * relay copies it into the Kafka record's headers, so the consumer's span continues the same trace.
 */
final class ObservedAppends implements AppendTracing {

  static final String NAME = "outbox.append";

  private final ObservationRegistry registry;

  ObservedAppends(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Append start(int events) {
    if (registry.isNoop() || registry.getCurrentObservation() == null) {
      return Append.UNTRACED;
    }
    Map<String, String> headers = new HashMap<>();
    SenderContext<Map<String, String>> context = new SenderContext<>(Map::put);
    context.setCarrier(headers);
    context.setRemoteServiceName("outbox");
    Observation observation =
        Observation.createNotStarted(NAME, () -> context, registry)
            .contextualName("outbox append")
            .highCardinalityKeyValue("outbox.events", String.valueOf(events))
            .start();
    return new Append() {
      @Override
      public String traceparent() {
        return headers.get("traceparent");
      }

      @Override
      public String tracestate() {
        return headers.get("tracestate");
      }

      @Override
      public void failed(Throwable error) {
        observation.error(error);
      }

      @Override
      public void stop() {
        observation.stop();
      }
    };
  }
}
