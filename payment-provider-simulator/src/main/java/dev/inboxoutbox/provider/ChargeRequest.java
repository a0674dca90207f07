package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
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

  static ChargeRequest parse(ObjectMapper json, byte[] body) throws InvalidRequestException {
    RequestBody request = RequestBody.parse(json, body, FIELDS);
    String paymentId = request.id("paymentId");
    long amountCents = request.positiveCents("amountCents");
    JsonNode currency = request.get("currency");
    if (currency == null
        || !currency.isTextual()
        || !CURRENCY.matcher(currency.asText()).matches()) {
      throw new InvalidRequestException("currency must be a three-letter ISO code in capitals");
    }
    return new ChargeRequest(paymentId, amountCents, currency.asText());
  }
}
