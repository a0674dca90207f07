package dev.inboxoutbox.provider;

import com.sun.net.httpserver.HttpExchange;
import java.net.http.HttpRequest;

/**
 * The W3C trace context of the request that caused a webhook, sent again on every copy of that
 * webhook: a traced payment service then sees the webhook it receives in the trace of the charge it
 * made. Either header may be absent, and then is not sent.
 */
record TraceContext(String traceparent, String tracestate) {

  static final TraceContext NONE = new TraceContext(null, null);

  static TraceContext of(HttpExchange exchange) {
    String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
    if (traceparent == null) {
      // A tracestate without its traceparent means nothing to a W3C receiver.
      return NONE;
    }
    return new TraceContext(traceparent, exchange.getRequestHeaders().getFirst("tracestate"));
  }

  HttpRequest.Builder addTo(HttpRequest.Builder request) {
    if (traceparent != null) {
      request.header("traceparent", traceparent);
    }
    if (tracestate != null) {
      request.header("tracestate", tracestate);
    }
    return request;
  }
}
