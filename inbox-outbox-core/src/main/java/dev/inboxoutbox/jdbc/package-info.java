/** JDBC helpers shared by the inbox, the outbox and the relay. Internal: not a stable API. */
package dev.inboxoutbox.jdbc;
