package dev.inboxoutbox.orders;

/**
 * The JSON body of a refusal, over HTTP and as a stored rejection: {@code {"error", "message"}}.
 */
record ErrorBody(String error, String message) {}
