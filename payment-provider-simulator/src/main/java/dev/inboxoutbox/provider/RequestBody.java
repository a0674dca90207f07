package dev.inboxoutbox.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * The body of an idempotent {@code POST}, read by the rules every request of the simulator shares:
 * a JSON object of known parameters, ids as non-blank strings, amounts as positive whole cents.
 */
final class RequestBody {

  static final int MAX_ID_LENGTH = 255;

  private final JsonNode root;

  private RequestBody(JsonNode root) {
    this.root = root;
  }

  /** Thrown for a body that is not a valid request; nothing is stored for it. */
  static final class InvalidRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidRequestException(String message) {
      super(message);
    }
  }

  /** The body as a JSON object that names no parameter outside {@code parameters}. */
  static RequestBody parse(ObjectMapper json, byte[] body, Set<String> parameters)
      throws InvalidRequestException {
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
    // Unknown parameters are refused rather than ignored: an ignored field would make two
    // different bodies count as the same request under one idempotency key.
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!parameters.contains(name)) {
        throw new InvalidRequestException("unknown parameter " + name);
      }
    }
    return new RequestBody(root);
  }

  /** An id: a non-blank string of at most {@link #MAX_ID_LENGTH} characters. */
  String id(String name) throws InvalidRequestException {
    JsonNode value = root.get(name);
    if (value == null
        || !value.isTextual()
        || value.asText().isBlank()
        || value.asText().length() > MAX_ID_LENGTH) {
      throw new InvalidRequestException(
          name + " must be a non-blank string of at most " + MAX_ID_LENGTH + " characters");
    }
    return value.asText();
  }

  /** An amount in cents: a positive integer. */
  long positiveCents(String name) throws InvalidRequestException {
    JsonNode value = root.get(name);
    if (value == null
        || !value.isIntegralNumber()
        || !value.canConvertToLong()
        || value.asLong() <= 0) {
      throw new InvalidRequestException(name + " must be a positive integer");
    }
    return value.asLong();
  }

  /** The raw value of a parameter, null when absent, for checks of the request's own. */
  JsonNode get(String name) {
    return root.get(name);
  }
}
