/**
 * A test kit that proves an application's own handler exactly-once: {@link
 * dev.inboxoutbox.test.ExactlyOnceKit} sends records to the application's consumer under each
 * scenario (a duplicate delivery, a failure after the handler's writes, a crash before and after
 * the database commit, racing duplicates, a key reused with another payload), and {@link
 * dev.inboxoutbox.test.ExactlyOnceAssert} asserts one effect per key through the application's own
 * query. Spring Boot applications import {@link dev.inboxoutbox.test.ExactlyOnceTestConfiguration}.
 */
package dev.inboxoutbox.test;
