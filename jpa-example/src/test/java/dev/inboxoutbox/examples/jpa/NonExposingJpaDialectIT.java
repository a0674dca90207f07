package dev.inboxoutbox.examples.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.orm.jpa.DefaultJpaDialect;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;

/**
 * A JpaTransactionManager whose dialect does not expose the JDBC connection (here Spring's {@link
 * DefaultJpaDialect}, as a JPA provider without a Spring dialect has): no connection is bound to
 * the transaction, so the inbox would get a connection of its own, in auto-commit. The application
 * must not start: a running one would fail every record and every idempotent request.
 */
class NonExposingJpaDialectIT {

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final String ORDERS = "jpa-plain-dialect-orders-" + RUN;

  /** Not a {@code @Configuration}: the application's component scan must not pick it up. */
  static class PlainJpaDialect {
    /** The EntityManagerFactory's dialect is the one JpaTransactionManager takes from it. */
    @Bean
    static BeanPostProcessor plainJpaDialect() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessBeforeInitialization(Object bean, String name) {
          if (bean instanceof LocalContainerEntityManagerFactoryBean factory) {
            factory.setJpaDialect(new DefaultJpaDialect());
          }
          return bean;
        }
      };
    }
  }

  @Test
  void theApplicationRefusesToStartNamingTheDialect() {
    Throwable failure =
        catchThrowable(
            () ->
                ExampleApplication.start(
                    List.of(PlainJpaDialect.class), "shipments.orders-topic=" + ORDERS));

    assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("binds no connection of the application's DataSource")
        .hasMessageContaining("JpaDialect");
  }
}
