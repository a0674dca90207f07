package dev.inboxoutbox.spring.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC endpoint idempotent under the request's {@code Idempotency-Key}: the key is
 * claimed, the endpoint runs and its response is stored, all in one transaction of the
 * application's {@code PlatformTransactionManager}; a repeat gets the stored response with {@code
 * Idempotent-Replayed: true} without running the endpoint again.
 *
 * <p>The endpoint writes through Spring's transaction ({@code JdbcClient}, {@code JdbcTemplate},
 * {@code DataSourceUtils.getConnection}, a repository) and answers with a response body ({@code
 * ResponseEntity} or {@code @ResponseBody}). A 2xx or 4xx answer is committed with the claim and
 * replayed; a 5xx answer or an exception rolls everything back, claim included, so a retry runs
 * again. A parameter of type {@link dev.inboxoutbox.inbox.IdempotencyKey} receives the claimed key.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentEndpoint {

  /**
   * The scope's operation: keys are unique per (tenant, principal, operation). Empty (the default)
   * means the HTTP method and the mapping's pattern, for example {@code POST /orders}. Name a
   * consumer's operation to share its scope with a Kafka topic.
   */
  String operation() default "";
}
