/**
 * The database schema the framework needs, as versioned Flyway migrations shipped in this jar under
 * {@code db/inbox-outbox/migration}, tracked in its own history table so it never mixes with the
 * application's own migrations.
 */
package dev.inboxoutbox.schema;
