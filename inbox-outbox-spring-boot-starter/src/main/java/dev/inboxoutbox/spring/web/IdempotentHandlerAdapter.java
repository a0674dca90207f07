package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.ClaimRequest;
import dev.inboxoutbox.inbox.ClaimResult;
import dev.inboxoutbox.inbox.IdempotencyKey;
import dev.inboxoutbox.inbox.IdempotencyKey.InvalidKeyException;
import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.inbox.Inbox.Entry;
import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import dev.inboxoutbox.inbox.Inbox.Status;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.inbox.Scope;
import dev.inboxoutbox.spring.SpringTransactionRunner;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerAdapter;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Runs {@link IdempotentEndpoint} methods: the DispatcherServlet has already chosen the handler and
 * run the interceptors' {@code preHandle} (authentication included), and asks the first adapter
 * that supports it to invoke it. This one claims the key, lets Spring MVC's own adapter invoke the
 * method and write its answer into a held response, stores that answer and commits, all in one new
 * transaction of the application's {@link PlatformTransactionManager}; only then does the answer
 * leave. A repeat is answered from the inbox without invoking the method.
 *
 * <p>An exception from the endpoint rolls back and propagates to Spring MVC's exception handling
 * unchanged (nothing is stored, a retry runs again), exactly as {@code @Transactional} would.
 */
final class IdempotentHandlerAdapter
    implements HandlerAdapter, Ordered, SmartInitializingSingleton {

  /** Request attribute holding the {@link ClaimRequest} the endpoint runs under. */
  static final String CLAIM_ATTRIBUTE = IdempotentHandlerAdapter.class.getName() + ".claim";

  private final Inbox inbox;
  private final DataSource dataSource;
  private final PlatformTransactionManager transactions;
  private final ObjectProvider<RequestMappingHandlerAdapter> invoker;
  private final HttpIdempotencyProperties properties;
  private final ObservationRegistry observations;

  IdempotentHandlerAdapter(
      Inbox inbox,
      DataSource dataSource,
      PlatformTransactionManager transactions,
      ObjectProvider<RequestMappingHandlerAdapter> invoker,
      HttpIdempotencyProperties properties,
      ObservationRegistry observations) {
    this.observations = observations;
    this.inbox = inbox;
    this.dataSource = dataSource;
    this.transactions = transactions;
    this.invoker = invoker;
    this.properties = properties;
  }

  /**
   * An application whose requests could only fail does not start ({@link SpringTransactionRunner}).
   */
  @Override
  public void afterSingletonsInstantiated() {
    SpringTransactionRunner.requireBoundConnection(transactions, dataSource);
  }

  /** Ahead of {@link RequestMappingHandlerAdapter}, which would otherwise take the method. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public boolean supports(Object handler) {
    return handler instanceof HandlerMethod method
        && method.hasMethodAnnotation(IdempotentEndpoint.class);
  }

  @Override
  public ModelAndView handle(
      HttpServletRequest request, HttpServletResponse response, Object handler) throws Exception {
    HandlerMethod method = (HandlerMethod) handler;
    IdempotencyKey key;
    try {
      key = IdempotencyKey.fromHttpHeader(request.getHeader(properties.keyHeader()));
    } catch (InvalidKeyException invalid) {
      answer(
          response,
          IdempotencyProblem.INVALID_KEY.describe(
              properties.keyHeader() + " header: " + invalid.getMessage(),
              Map.of("reason", invalid.reason().name())));
      return null;
    }
    byte[] body = request.getInputStream().readAllBytes();
    Scope scope;
    try {
      scope = scope(request, method.getMethodAnnotation(IdempotentEndpoint.class));
    } catch (IllegalArgumentException invalid) {
      answer(response, IdempotencyProblem.INVALID_SCOPE.describe(invalid.getMessage(), Map.of()));
      return null;
    }
    ClaimRequest claim;
    try {
      claim = RequestFingerprint.claim(scope, key, request, body);
    } catch (InvalidPayloadException invalid) {
      answer(response, IdempotencyProblem.INVALID_BODY.describe(invalid.getMessage(), Map.of()));
      return null;
    }
    request.setAttribute(CLAIM_ATTRIBUTE, claim);
    runClaimed(claim, new CachedBodyRequest(request, body), response, method);
    return null;
  }

  private void runClaimed(
      ClaimRequest claim,
      HttpServletRequest request,
      HttpServletResponse response,
      HandlerMethod method)
      throws Exception {
    DefaultTransactionDefinition definition =
        new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    definition.setName("idempotent " + claim.scope().operation());
    TransactionStatus transaction = transactions.getTransaction(definition);
    CapturingResponse answer = new CapturingResponse(response);
    try {
      if (!withConnection(connection -> InFlightLock.tryAcquire(connection, claim))) {
        transactions.rollback(transaction);
        decided(claim, "in-flight");
        inProgress(response);
        return;
      }
      ClaimResult result = withConnection(connection -> inbox.claim(connection, claim));
      decided(claim, decision(result));
      if (!(result instanceof ClaimResult.New fresh)) {
        transactions.rollback(transaction); // nothing was written
        answerRepeat(result, response);
        return;
      }
      invoke(request, answer, method);
      if (answer.getStatus() >= 500) {
        transactions.rollback(transaction);
      } else {
        Outcome outcome = StoredResponse.of(answer, properties.replayedHeaders()).toOutcome();
        withConnection(
            connection -> {
              inbox.complete(connection, fresh, outcome);
              return null;
            });
        transactions.commit(transaction);
      }
    } catch (Throwable failure) {
      if (!transaction.isCompleted()) {
        try {
          transactions.rollback(transaction);
        } catch (RuntimeException rollbackFailure) {
          failure.addSuppressed(rollbackFailure);
        }
      }
      answer.withdraw();
      throw failure;
    }
    answer.release();
  }

  private void invoke(HttpServletRequest request, CapturingResponse answer, HandlerMethod method)
      throws Exception {
    ModelAndView view = invoker.getObject().handle(request, answer, method);
    if (view != null) {
      throw new UnstorableResponseException(
          method
              + " returned a view; an idempotent endpoint answers with a body"
              + " (ResponseEntity or @ResponseBody)",
          null);
    }
    if (request.isAsyncStarted()) {
      throw new UnstorableResponseException(
          method
              + " started asynchronous processing; an idempotent endpoint answers before"
              + " its transaction commits",
          null);
    }
    if (answer.getResponse().isCommitted()) {
      throw new UnstorableResponseException(
          method
              + " sent its answer itself (sendRedirect or a flush); it is held until the"
              + " transaction commits",
          null);
    }
  }

  /**
   * Tags the request's observation (the HTTP server span, when the application traces) with what
   * the inbox decided. High-cardinality key values: they reach the span, not the request metrics,
   * whose tags stay the same for every endpoint.
   */
  private void decided(ClaimRequest claim, String decision) {
    Observation request = observations.getCurrentObservation();
    if (request != null) {
      request
          .highCardinalityKeyValue("inbox.operation", claim.scope().operation())
          .highCardinalityKeyValue("inbox.idempotency_key", claim.key().value())
          .highCardinalityKeyValue("inbox.decision", decision);
    }
  }

  private static String decision(ClaimResult result) {
    if (result instanceof ClaimResult.New) {
      return "new";
    }
    if (result instanceof ClaimResult.Conflict) {
      return "conflict";
    }
    return ((ClaimResult.Duplicate) result).original().status() == Status.PROCESSING
        ? "in-flight"
        : "duplicate";
  }

  private void answerRepeat(ClaimResult result, HttpServletResponse response) throws IOException {
    if (result instanceof ClaimResult.Conflict) {
      answer(
          response,
          IdempotencyProblem.KEY_REUSED.describe(
              "this " + properties.keyHeader() + " was used for a different request", Map.of()));
      return;
    }
    Entry original = ((ClaimResult.Duplicate) result).original();
    if (original.status() == Status.PROCESSING) {
      inProgress(response);
    } else if (original.outcome().isPresent()) {
      StoredResponse.fromOutcome(original.outcome().get()).replay(response);
    } else {
      prunedReplay(original, response);
    }
  }

  private void inProgress(HttpServletResponse response) throws IOException {
    response.setHeader(
        "Retry-After", Long.toString(Math.max(1, properties.retryAfter().toSeconds())));
    answer(
        response,
        IdempotencyProblem.IN_PROGRESS.describe(
            "the first request with this " + properties.keyHeader() + " is still being processed",
            Map.of()));
  }

  /**
   * Retention dropped the stored answer but kept the key: the request was handled, and is not run
   * again; the answer says so and how it ended.
   */
  private void prunedReplay(Entry original, HttpServletResponse response) throws IOException {
    response.setHeader(StoredResponse.REPLAYED_HEADER, "true");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("replayed", true);
    body.put("status", original.status().name());
    body.put("detail", "outcome body pruned by retention");
    write(response, HttpStatus.OK, body, MediaType.APPLICATION_JSON);
  }

  private void answer(HttpServletResponse response, ProblemDetail problem) throws IOException {
    write(
        response,
        HttpStatusCode.valueOf(problem.getStatus()),
        problem,
        MediaType.APPLICATION_PROBLEM_JSON);
  }

  /**
   * Writes {@code body} with Spring MVC's message converters, so with the application's Jackson.
   */
  @SuppressWarnings("unchecked")
  private void write(
      HttpServletResponse response, HttpStatusCode status, Object body, MediaType type)
      throws IOException {
    ServletServerHttpResponse out = new ServletServerHttpResponse(response);
    out.setStatusCode(status);
    for (HttpMessageConverter<?> converter : invoker.getObject().getMessageConverters()) {
      if (converter.canWrite(body.getClass(), type)) {
        ((HttpMessageConverter<Object>) converter).write(body, type, out);
        out.flush();
        return;
      }
    }
    throw new HttpMessageNotWritableException("no message converter writes " + type);
  }

  private Scope scope(HttpServletRequest request, IdempotentEndpoint endpoint) {
    String operation = endpoint.operation();
    if (operation.isEmpty()) {
      operation =
          request.getMethod()
              + " "
              + request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    }
    Principal principal = request.getUserPrincipal();
    String tenantHeader = properties.tenantHeader();
    return Scope.of(
        tenantHeader == null || tenantHeader.isEmpty() ? "" : request.getHeader(tenantHeader),
        principal == null ? "" : principal.getName(),
        operation);
  }

  /** The connection of the current Spring transaction, where the endpoint's own writes go too. */
  private <T> T withConnection(SqlWork<T> work) throws SQLException {
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      return work.apply(connection);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T apply(Connection connection) throws SQLException;
  }
}
