/** Queries that tests assert on: row counts and single values. */
package dev.inboxoutbox.testing.jdbc;
