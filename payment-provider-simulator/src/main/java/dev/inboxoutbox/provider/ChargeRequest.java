package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The parameters of {@code POST /v1/charges}. Two requests under one idempotency key are "the same"
 * when these values are equal, whatever the JSON spacing or field order, which is how Stripe
 * compares parameters.
 */
record ChargeRequest(String paymentId, long amountCents, String currency) {

  private static final Set<String> FIELDS = Set.of("paymentId", "amountCents", "currency");
  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  /** Thrown for a body that is not a valid charge request; nothing is stored for it. */
  static final class InvalidChargeRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidChargeRequestException(String message) {
      super(message);
    }
  }

  static ChargeRequest parse(ObjectMapper json, byte[] body) throws InvalidChargeRequestException {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JsonProcessingException e) {
      throw new InvalidChargeRequestException("body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidChargeRequestException("body could not be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new InvalidChargeRequestException("body must be a JSON object");
    }
    // Unknown parameters are refused rather than ignored: an ignored field would make two
    // different bodies count as the same request under one idempotency key.
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidChargeRequestException("unknown parameter " + name);
      }
    }
    JsonNode paymentId = root.get("paymentId");
    if (paymentId == null
        || !paymentId.isTextual()
        || paymentId.asText().isBlank()
        || paymentId.asText().length() > 255) {
      throw new InvalidChargeRequestException(
          "paymentId must be a non-blank string of at most 255 characters");
    }
    JsonNode amount = root.get("amountCents");
    if (amount == null
        || !amount.isIntegralNumber()
        || !amount.canConvertToLong()
        || amount.asLong() <= 0) {
      throw new InvalidChargeRequestException("amountCents must be a positive integer");
    }
    JsonNode currency = root.get("currency");
    if (currency == null
        || !currency.isTextual()
        || !CURRENCY.matcher(currency.asText()).matches()) {
      throw new InvalidChargeRequestException(
          "currency must be a three-letter ISO code in capitals");
    }
    return new ChargeRequest(paymentId.asText(), amount.asLong(), currency.asText());
  }
}
