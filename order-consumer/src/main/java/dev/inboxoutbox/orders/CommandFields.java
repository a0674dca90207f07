package dev.inboxoutbox.orders;

import dev.inboxoutbox.consumer.PoisonMessageException;
import tools.jackson.databind.JsonNode;

/** Fields of a command or event payload, checked as read: a wrong one makes it a poison message. */
final class CommandFields {

  private CommandFields() {}

  static String text(JsonNode node, String field) {
    return text(node, field, field);
  }

  /** A non-blank string of at most 200 characters; {@code field} names it in the refusal. */
  static String text(JsonNode node, String name, String field) {
    JsonNode value = node == null ? null : node.get(name);
    if (value == null
        || !value.isString()
        || value.asString().isBlank()
        || value.asString().length() > 200) {
      throw PoisonMessageException.malformed("field " + field + " must be a non-blank string");
    }
    return value.asString();
  }

  /**
   * A JSON integer within bounds. Fractions are refused, not truncated: 1.5 units or 100.7 cents
   * cannot be stored, and rounding would apply a different order from the one sent.
   */
  static long wholeNumber(JsonNode node, String name, String field, long min, long max) {
    JsonNode value = node == null ? null : node.get(name);
    if (value == null
        || !value.isIntegralNumber()
        || !value.canConvertToLong()
        || value.asLong() < min
        || value.asLong() > max) {
      throw PoisonMessageException.malformed(
          "field " + field + " must be a whole number from " + min + " to " + max);
    }
    return value.asLong();
  }
}
