/** A library module's public types against the list docs/api.md keeps of them. */
package dev.inboxoutbox.testing.api;
