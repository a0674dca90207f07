package dev.inboxoutbox.spring.web;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The answers an {@link IdempotentEndpoint} gives on its own, as RFC 9457 problem details ({@code
 * application/problem+json}). The {@code type} URIs are stable: clients may switch on them.
 */
enum IdempotencyProblem {
  INVALID_KEY(HttpStatus.BAD_REQUEST, "invalid-idempotency-key", "Invalid idempotency key"),
  INVALID_BODY(HttpStatus.BAD_REQUEST, "invalid-request-body", "Invalid request body"),
  INVALID_SCOPE(HttpStatus.BAD_REQUEST, "invalid-idempotency-scope", "Invalid tenant or principal"),
  IN_PROGRESS(HttpStatus.CONFLICT, "request-in-progress", "Request in progress"),
  KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused", "Idempotency key reused");

  private static final String TYPE_PREFIX = "urn:inbox-outbox:problem:";

  private final HttpStatus status;
  private final URI type;
  private final String title;

  IdempotencyProblem(HttpStatus status, String name, String title) {
    this.status = status;
    this.type = URI.create(TYPE_PREFIX + name);
    this.title = title;
  }

  /** This problem with its {@code detail} and extension members. */
  ProblemDetail describe(String detail, Map<String, String> extensions) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setType(type);
    problem.setTitle(title);
    extensions.forEach(problem::setProperty);
    return problem;
  }
}
