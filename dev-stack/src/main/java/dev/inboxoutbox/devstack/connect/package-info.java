/**
 * Kafka Connect workers for tests and {@code iox bench}: a distributed worker as a child process,
 * killed and restarted like a real one, its REST API and its plugin path. The worker runs from a
 * stock worker's class path given by the caller, never from this JVM's.
 */
package dev.inboxoutbox.devstack.connect;
