/**
 * HTTP idempotency for Spring MVC endpoints: {@link dev.inboxoutbox.spring.web.IdempotentEndpoint}
 * claims the request's key, runs the endpoint and stores its answer in one transaction, and
 * replays the answer to repeats; its own refusals are RFC 9457 problem details.
 */
package dev.inboxoutbox.spring.web;
