/**
 * Spring Boot auto-configuration over inbox-outbox-core: {@code inbox-outbox.*} properties,
 * listener containers for {@link dev.inboxoutbox.spring.IdempotentConsumerDefinition} beans, the
 * relay, retention, Micrometer meters and the relay health indicator. Thin: every bean is a core
 * class that also works without Spring.
 */
package dev.inboxoutbox.spring;
