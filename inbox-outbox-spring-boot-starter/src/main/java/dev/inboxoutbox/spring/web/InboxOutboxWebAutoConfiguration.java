package dev.inboxoutbox.spring.web;

import dev.inboxoutbox.inbox.Inbox;
import dev.inboxoutbox.spring.InboxOutboxAutoConfiguration;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * HTTP idempotency for Spring MVC: makes methods annotated {@link IdempotentEndpoint} claim their
 * {@code Idempotency-Key} in the application's transaction and replay stored answers. Ordered after
 * both transaction managers Boot may create, the JDBC one and Hibernate's {@code
 * JpaTransactionManager}, so that {@code @ConditionalOnBean(PlatformTransactionManager.class)} sees
 * whichever the application has; Hibernate's is named, not imported, as the starter does not depend
 * on JPA.
 */
@AutoConfiguration(
    after = {
      InboxOutboxAutoConfiguration.class,
      DataSourceTransactionManagerAutoConfiguration.class
    },
    afterName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean({Inbox.class, DataSource.class, PlatformTransactionManager.class})
@EnableConfigurationProperties(HttpIdempotencyProperties.class)
public class InboxOutboxWebAutoConfiguration {

  @Bean
  IdempotentHandlerAdapter idempotentHandlerAdapter(
      Inbox inbox,
      DataSource dataSource,
      PlatformTransactionManager transactions,
      ObjectProvider<RequestMappingHandlerAdapter> invoker,
      HttpIdempotencyProperties properties,
      ObjectProvider<ObservationRegistry> observations) {
    return new IdempotentHandlerAdapter(
        inbox,
        dataSource,
        transactions,
        invoker,
        properties,
        observations.getIfAvailable(() -> ObservationRegistry.NOOP));
  }

  @Bean
  WebMvcConfigurer idempotencyKeyArguments() {
    return new WebMvcConfigurer() {
      @Override
      public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new IdempotencyKeyArgumentResolver());
      }
    };
  }
}
