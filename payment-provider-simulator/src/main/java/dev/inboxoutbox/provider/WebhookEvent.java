package dev.inboxoutbox.provider;

import java.nio.charset.StandardCharsets;

/**
 * One webhook event. {@code body} is the exact JSON sent on every delivery of this event, so
 * duplicates and retries carry identical bytes (and the same {@code id}), as a real provider's do:
 * {@code {"id":"evt_...","type":"charge.succeeded","created":1700000000,"data":{"chargeId":...,
 * "paymentId":...,"amountCents":...,"currency":...}}}.
 */
public record WebhookEvent(String id, String type, long created, String paymentId, String body) {

  public byte[] bodyBytes() {
    return body.getBytes(StandardCharsets.UTF_8);
  }
}
