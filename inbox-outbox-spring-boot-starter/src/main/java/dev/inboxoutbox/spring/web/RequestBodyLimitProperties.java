package dev.inboxoutbox.spring.web;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings under {@code inbox-outbox.http}.
 *
 * @param maxRequestBody the largest request body accepted; larger ones get 413 before they are read
 */
@ConfigurationProperties("inbox-outbox.http")
public record RequestBodyLimitProperties(@DefaultValue("1MB") DataSize maxRequestBody) {}
