package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * The parameters of {@code POST /v1/refunds}: which charge, and how much of it. Two requests under
 * one idempotency key are "the same" when these values are equal, whatever the JSON spacing or
 * field order.
 */
record RefundRequest(String chargeId, long amountCents) {

  private static final Set<String> FIELDS = Set.of("chargeId", "amountCents");

  static RefundRequest parse(ObjectMapper json, byte[] body) throws InvalidRequestException {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException("body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidRequestException("body could not be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new InvalidRequestException("body must be a JSON object");
    }
    // Refused rather than ignored, as for charges: an ignored field would make two different
    // bodies count as the same request under one idempotency key.
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidRequestException("unknown parameter " + name);
      }
    }
    JsonNode chargeId = root.get("chargeId");
    if (chargeId == null
        || !chargeId.isTextual()
        || chargeId.asText().isBlank()
        || chargeId.asText().length() > 255) {
      throw new InvalidRequestException(
          "chargeId must be a non-blank string of at most 255 characters");
    }
    JsonNode amount = root.get("amountCents");
    if (amount == null
        || !amount.isIntegralNumber()
        || !amount.canConvertToLong()
        || amount.asLong() <= 0) {
      throw new InvalidRequestException("amountCents must be a positive integer");
    }
    return new RefundRequest(chargeId.asText(), amount.asLong());
  }

  /** Thrown for a body that is not a valid refund request; nothing is stored for it. */
  static final class InvalidRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidRequestException(String message) {
      super(message);
    }
  }
}
