package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.PoisonMessageException;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Reads required fields of incoming payloads. A missing or mistyped field can never be fixed by a
 * retry, so it is a poison message: dead-lettered with the field named, nothing applied.
 */
final class Payloads {

  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  private Payloads() {}

  static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw PoisonMessageException.malformed("field " + field + " must be a non-blank string");
    }
    return value.asString();
  }

  static long positiveCents(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null
        || !value.isIntegralNumber()
        || !value.canConvertToLong()
        || value.asLong() <= 0) {
      throw PoisonMessageException.malformed(
          "field " + field + " must be a positive integer (cents)");
    }
    return value.asLong();
  }

  static String currency(JsonNode node, String field) {
    String value = text(node, field);
    if (!CURRENCY.matcher(value).matches()) {
      throw PoisonMessageException.malformed(
          "field " + field + " must be a three-letter ISO currency code");
    }
    return value;
  }

  static JsonNode object(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || !value.isObject()) {
      throw PoisonMessageException.malformed("field " + field + " must be an object");
    }
    return value;
  }
}
