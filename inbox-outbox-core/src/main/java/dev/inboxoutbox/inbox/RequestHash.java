package dev.inboxoutbox.inbox;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * SHA-256 of a request's canonical form, stored with its key. The same key arriving with another
 * hash is a {@link ClaimResult.Conflict}: a changed request must use a new key.
 *
 * <p>JSON hashes in its canonical form ({@link CanonicalJson}: members sorted by name, no
 * whitespace, numbers normalised), so a sender that reorders fields or re-serialises a payload
 * still produces the same hash.
 *
 * @param hex 64 lower-case hex digits
 */
record RequestHash(String hex) {

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  RequestHash {
    if (hex == null || !SHA256_HEX.matcher(hex).matches()) {
      throw new IllegalArgumentException("a request hash is 64 lower-case hex digits; was " + hex);
    }
  }

  static RequestHash ofJson(String json) {
    return ofJsonTree(CanonicalJson.parse(json));
  }

  static RequestHash ofJson(byte[] json) {
    return ofJsonTree(CanonicalJson.parse(json));
  }

  /** Hashes the canonical form while it is written, without an intermediate byte array. */
  static RequestHash ofJsonTree(JsonNode json) {
    MessageDigest digest = sha256();
    CanonicalJson.writeTo(json, new DigestOutputStream(OutputStream.nullOutputStream(), digest));
    return new RequestHash(HexFormat.of().formatHex(digest.digest()));
  }

  /** Bytes as they are, for payloads that are not JSON. */
  static RequestHash ofBytes(byte[] bytes) {
    return new RequestHash(HexFormat.of().formatHex(sha256().digest(bytes)));
  }

  /**
   * A request whose target (path and query) is part of its identity: the target, a newline, then
   * the body's hash in hex, hashed again.
   */
  static RequestHash ofTarget(String target, RequestHash body) {
    return ofBytes((target + "\n" + body.hex()).getBytes(StandardCharsets.UTF_8));
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
