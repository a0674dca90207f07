package dev.inboxoutbox.inbox;

import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One byte form per JSON value, so that equal content always hashes equally whatever the sender's
 * field order, whitespace or number spelling:
 *
 * <ul>
 *   <li>object members sorted by name (UTF-16 code unit order, as RFC 8785), arrays kept in order;
 *   <li>no insignificant whitespace; strings escaped by Jackson's standard rules, UTF-8 encoded;
 *   <li>numbers as exact decimals without trailing zeros or exponent: {@code 1}, {@code 1.0} and
 *       {@code 1e0} are one number; {@code -0} is {@code 0};
 *   <li>duplicate member names and trailing content are rejected rather than guessed at.
 * </ul>
 */
final class CanonicalJson {

  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .build();

  private static final int MAX_NUMBER_SCALE = 1000;

  private CanonicalJson() {}

  static JsonNode parse(String json) {
    if (json == null) {
      throw new InvalidPayloadException("payload is missing", null);
    }
    return parse(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses strictly and checks every number is in the supported range, so that a tree this returns
   * always has a canonical form: {@link #toBytes} cannot refuse it later.
   */
  static JsonNode parse(byte[] json) {
    if (json == null) {
      throw new InvalidPayloadException("payload is missing", null);
    }
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (JacksonException e) {
      throw new InvalidPayloadException("payload is not valid JSON: " + e.getOriginalMessage(), e);
    }
    if (node == null || node.isMissingNode()) {
      throw new InvalidPayloadException("payload is empty", null);
    }
    requireSupportedNumbers(node);
    return node;
  }

  static byte[] toBytes(JsonNode node) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    writeTo(node, out);
    return out.toByteArray();
  }

  /** Writes the canonical form to {@code out}, such as a digest, without a copy in between. */
  static void writeTo(JsonNode node, OutputStream out) {
    try (JsonGenerator generator = MAPPER.createGenerator(out)) {
      write(node, generator);
    }
  }

  private static void requireSupportedNumbers(JsonNode node) {
    if (node.isNumber()) {
      canonicalNumber(node.decimalValue());
    } else if (node.isContainer()) {
      for (JsonNode child : node) {
        requireSupportedNumbers(child);
      }
    }
  }

  private static void write(JsonNode node, JsonGenerator generator) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
        members.sort(Map.Entry.comparingByKey());
        generator.writeStartObject();
        for (Map.Entry<String, JsonNode> member : members) {
          generator.writeName(member.getKey());
          write(member.getValue(), generator);
        }
        generator.writeEndObject();
      }
      case ARRAY -> {
        generator.writeStartArray();
        for (JsonNode element : node) {
          write(element, generator);
        }
        generator.writeEndArray();
      }
      case NUMBER -> generator.writeRawValue(canonicalNumber(node.decimalValue()));
      case STRING -> generator.writeString(node.stringValue());
      case BOOLEAN -> generator.writeBoolean(node.booleanValue());
      case NULL -> generator.writeNull();
      default ->
          throw new InvalidPayloadException("unsupported JSON node " + node.getNodeType(), null);
    }
  }

  private static String canonicalNumber(BigDecimal value) {
    if (value.signum() == 0) {
      return "0";
    }
    BigDecimal stripped = value.stripTrailingZeros();
    // A plain rendering of 1e999999999 would be a billion digits: refuse instead of hashing it.
    if (Math.abs(stripped.scale()) > MAX_NUMBER_SCALE) {
      throw new InvalidPayloadException("number " + value + " is out of the supported range", null);
    }
    return stripped.toPlainString();
  }
}
