package dev.inboxoutbox.examples.jpa;

import static org.awaitility.Awaitility.await;

import jakarta.persistence.EntityManagerFactory;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.engine.spi.SessionImplementor;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Test beans (not a {@code @Configuration}, so the application's component scan leaves it out):
 * records, per {@code Idempotency-Key}, whether a Hibernate session bound to the request still held
 * a JDBC connection when the request completed, after the endpoint's commit. Ordered after
 * open-in-view's interceptor, so its completion runs before that one closes the session.
 */
class ConnectionAtRequestEnd {

  /** Key to: a session bound to the request held a connection at its end. */
  private static final Map<String, Boolean> HELD = new ConcurrentHashMap<>();

  /**
   * Whether the request with {@code key} ended with a connection held; waited for, as the client
   * may have the answer before the request's completion callbacks have run.
   */
  static boolean held(String key) {
    return await("the completion of the request with key " + key)
        .atMost(Duration.ofSeconds(10))
        .until(() -> HELD.get(key), Objects::nonNull);
  }

  /** Forgets what the last request with {@code key} recorded, before another is sent with it. */
  static void forget(String key) {
    HELD.remove(key);
  }

  @Bean
  WebMvcConfigurer requestEndProbe(EntityManagerFactory factory) {
    return new WebMvcConfigurer() {
      @Override
      public void addInterceptors(InterceptorRegistry registry) {
        registry
            .addInterceptor(
                new HandlerInterceptor() {
                  @Override
                  public void afterCompletion(
                      HttpServletRequest request,
                      HttpServletResponse response,
                      Object handler,
                      Exception failure) {
                    String key = request.getHeader("Idempotency-Key");
                    if (key != null) {
                      HELD.put(key, holdsConnection(factory));
                    }
                  }
                })
            .order(Ordered.LOWEST_PRECEDENCE);
      }
    };
  }

  private static boolean holdsConnection(EntityManagerFactory factory) {
    if (!(TransactionSynchronizationManager.getResource(factory)
        instanceof EntityManagerHolder bound)) {
      return false;
    }
    return bound
        .getEntityManager()
        .unwrap(SessionImplementor.class)
        .getJdbcCoordinator()
        .getLogicalConnection()
        .isPhysicallyConnected();
  }
}
