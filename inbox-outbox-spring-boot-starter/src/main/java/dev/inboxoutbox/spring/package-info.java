/**
 * Spring Boot auto-configuration over inbox-outbox-core: {@code inbox-outbox.*} properties,
 * listener containers for {@link dev.inboxoutbox.spring.IdempotentConsumerDefinition} beans,
 * retention, Micrometer meters and health indicators, and the relay with its meters and health
 * where inbox-outbox-relay-debezium is on the classpath. Thin: every bean is a class of core or of
 * the relay module that also works without Spring.
 */
package dev.inboxoutbox.spring;
