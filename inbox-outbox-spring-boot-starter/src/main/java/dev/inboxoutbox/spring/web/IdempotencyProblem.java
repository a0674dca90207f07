package dev.inboxoutbox.spring.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The answers an {@link IdempotentEndpoint} gives on its own, as RFC 9457 problem details ({@code
 * application/problem+json}). The {@code type} URIs are stable: clients may switch on them.
 */
enum IdempotencyProblem {
  INVALID_KEY(400, "invalid-idempotency-key", "Invalid idempotency key"),
  INVALID_BODY(400, "invalid-request-body", "Invalid request body"),
  INVALID_SCOPE(400, "invalid-idempotency-scope", "Invalid tenant or principal"),
  IN_PROGRESS(409, "request-in-progress", "Request in progress"),
  KEY_REUSED(422, "idempotency-key-reused", "Idempotency key reused");

  static final String MEDIA_TYPE = "application/problem+json";
  private static final String TYPE_PREFIX = "urn:inbox-outbox:problem:";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int status;
  private final String type;
  private final String title;

  IdempotencyProblem(int status, String name, String title) {
    this.status = status;
    this.type = TYPE_PREFIX + name;
    this.title = title;
  }

  String type() {
    return type;
  }

  void write(HttpServletResponse response, String detail, Map<String, String> extensions)
      throws IOException {
    ObjectNode problem = JSON.createObjectNode();
    problem.put("type", type).put("title", title).put("status", status).put("detail", detail);
    extensions.forEach(problem::put);
    byte[] body = JSON.writeValueAsBytes(problem);
    response.setStatus(status);
    response.setContentType(MEDIA_TYPE);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
