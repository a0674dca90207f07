/**
 * Kafka Connect workers for tests: a distributed worker as a child process, killed and restarted
 * like a real one, and its REST API.
 */
package dev.inboxoutbox.testing.connect;
