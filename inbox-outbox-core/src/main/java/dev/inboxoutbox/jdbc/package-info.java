/** JDBC helpers shared by the inbox and the outbox. Internal: not a stable API. */
package dev.inboxoutbox.jdbc;
