package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.util.Set;

/**
 * The parameters of {@code POST /v1/refunds}: which charge, and how much of it. Two requests under
 * one idempotency key are "the same" when these values are equal, whatever the JSON spacing or
 * field order.
 */
record RefundRequest(String chargeId, long amountCents) {

  private static final Set<String> FIELDS = Set.of("chargeId", "amountCents");

  static RefundRequest parse(ObjectMapper json, byte[] body) throws InvalidRequestException {
    RequestBody request = RequestBody.parse(json, body, FIELDS);
    return new RefundRequest(request.id("chargeId"), request.positiveCents("amountCents"));
  }
}
