package dev.inboxoutbox.test;

import dev.inboxoutbox.consumer.BatchProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Import it into a {@code @SpringBootTest} ({@code @Import(ExactlyOnceTestConfiguration.class)}):
 * it registers the kit's {@link BatchProcessor.Hooks}, which the starter hands to every idempotent
 * consumer of the application. They act only on records an {@link ExactlyOnceKit} sent, and only
 * while one of its scenarios runs.
 */
@Configuration(proxyBeanMethods = false)
public class ExactlyOnceTestConfiguration {

  @Bean
  ScenarioHooks inboxOutboxTestKitHooks() {
    return new ScenarioHooks();
  }
}
