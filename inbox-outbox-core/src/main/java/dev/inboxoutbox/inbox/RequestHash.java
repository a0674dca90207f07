package dev.inboxoutbox.inbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * SHA-256 of a request's canonical form, stored with its key. The same key arriving with another
 * hash is a {@link ClaimResult.Conflict}: a changed request must use a new key.
 *
 * <p>{@link #ofJson(String)} hashes the canonical JSON described in the README (members sorted by
 * name, no whitespace, numbers normalised), so a sender that reorders fields or re-serialises a
 * payload still produces the same hash.
 *
 * @param hex 64 lower-case hex digits
 */
public record RequestHash(String hex) {

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  public RequestHash {
    if (hex == null || !SHA256_HEX.matcher(hex).matches()) {
      throw new IllegalArgumentException("a request hash is 64 lower-case hex digits; was " + hex);
    }
  }

  /** Hashes the canonical form of a JSON document; throws {@link InvalidPayloadException}. */
  public static RequestHash ofJson(String json) {
    return ofJsonTree(CanonicalJson.parse(json));
  }

  /** Hashes the canonical form of a UTF-8 JSON document; throws {@link InvalidPayloadException}. */
  public static RequestHash ofJson(byte[] json) {
    return ofJsonTree(CanonicalJson.parse(json));
  }

  /**
   * Parses JSON as strictly as the hash does (duplicate members and trailing content rejected,
   * decimals exact), for callers that need the tree and the hash: parse once, then {@link
   * #ofJsonTree}. Throws {@link InvalidPayloadException}.
   */
  public static JsonNode parseJson(byte[] json) {
    return CanonicalJson.parse(json);
  }

  /** Hashes the canonical form of an already parsed JSON tree. */
  public static RequestHash ofJsonTree(JsonNode json) {
    return ofBytes(CanonicalJson.toBytes(json));
  }

  /** Hashes bytes as they are, for payloads that are not JSON. */
  public static RequestHash ofBytes(byte[] bytes) {
    return new RequestHash(HexFormat.of().formatHex(sha256().digest(bytes)));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return hex;
  }
}
