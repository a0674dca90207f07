/** Checks on how services migrate their own schema: several instances at once on a new database. */
package dev.inboxoutbox.testing.schema;
