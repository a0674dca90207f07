package dev.inboxoutbox.spring.web;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bounds every request body of a servlet application ({@code inbox-outbox.http.max-request-body}, 1
 * MiB by default): idempotent endpoints hash whole bodies, and an unbounded body is a heap an
 * attacker chooses the size of.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({FilterRegistrationBean.class, JsonMapper.class})
@EnableConfigurationProperties(HttpIdempotencyProperties.class)
public class RequestBodyLimitAutoConfiguration {

  @Bean
  FilterRegistrationBean<RequestBodyLimitFilter> inboxOutboxRequestBodyLimit(
      HttpIdempotencyProperties properties, ObjectProvider<JsonMapper> json) {
    FilterRegistrationBean<RequestBodyLimitFilter> registration =
        new FilterRegistrationBean<>(
            new RequestBodyLimitFilter(
                properties.maxRequestBody().toBytes(), json.getIfAvailable(JsonMapper::shared)));
    // Before anything that reads the body.
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    return registration;
  }
}
