package dev.inboxoutbox.outbox;

/**
 * What an append tells a tracer: nothing unless the outbox was given an observation registry, so
 * core runs without Micrometer on the class path.
 */
interface AppendTracing {

  /** Captures nothing. */
  AppendTracing OFF = events -> Append.UNTRACED;

  /** Starts observing an append of {@code events} events, if a trace is current. */
  Append start(int events);

  /** One append, observed or not. */
  interface Append {

    Append UNTRACED =
        new Append() {
          @Override
          public String traceparent() {
            return null;
          }

          @Override
          public String tracestate() {
            return null;
          }

          @Override
          public void failed(Throwable error) {}

          @Override
          public void stop() {}
        };

    /** The W3C trace context for events that bring none, or null. */
    String traceparent();

    /** The W3C tracestate that goes with {@link #traceparent()}, or null. */
    String tracestate();

    void failed(Throwable error);

    void stop();
  }
}
