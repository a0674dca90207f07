/**
 * The starter's Spring MVC support. {@link dev.inboxoutbox.spring.web.IdempotentEndpoint} claims
 * the request's key, runs the endpoint and stores its answer in one transaction, and replays the
 * answer to repeats; its own refusals are RFC 9457 problem details. Every request body is bounded
 * while it is read ({@code inbox-outbox.http.max-request-body}).
 */
package dev.inboxoutbox.spring.web;
