/**
 * Fault injection for {@code iox chaos} only: crash points that halt the JVM and the negative
 * control that makes every delivery look new. The chaos CLI adds this jar to the class path of the
 * services it launches; no service depends on it.
 */
package dev.inboxoutbox.chaos.extension;
