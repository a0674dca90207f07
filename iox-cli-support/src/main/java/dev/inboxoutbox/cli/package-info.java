/**
 * Plumbing the iox commands of several modules share: {@link dev.inboxoutbox.cli.OperatorError}
 * (one line and exit code 2 for what the operator fixes outside iox) and {@link
 * dev.inboxoutbox.cli.DurationConverter} (durations such as {@code 90s}, {@code 5m}).
 */
package dev.inboxoutbox.cli;
