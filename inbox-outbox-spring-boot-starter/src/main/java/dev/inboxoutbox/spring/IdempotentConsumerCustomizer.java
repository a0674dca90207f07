package dev.inboxoutbox.spring;

import dev.inboxoutbox.consumer.ConsumerSettings;

/**
 * Adjusts the settings of every idempotent consumer the starter builds, after {@code
 * inbox-outbox.consumer.*} and the definition's own {@link
 * IdempotentConsumerDefinition#withSettings customizer}. Declare one as a bean; several apply in
 * their {@code @Order}.
 *
 * <pre>{@code
 * @Bean
 * IdempotentConsumerCustomizer tenantFromHeader() {
 *   return (operation, settings) -> settings.tenantHeader("X-Tenant");
 * }
 * }</pre>
 */
@FunctionalInterface
public interface IdempotentConsumerCustomizer {

  void customize(String operation, ConsumerSettings.Builder settings);
}
