package dev.inboxoutbox.inbox;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A key's identity in the inbox (schema v2): the first 16 bytes of SHA-256 over tenant, principal,
 * operation and key, each preceded by its UTF-8 length as a 4-byte big-endian integer. SQL function
 * {@code inbox_key_hash} computes the same for the trigger and the upgrade; the claim computes it
 * here, where it costs a fraction of what the function costs per key inside the statement. {@code
 * KeyDigestIT} holds the two to the same bytes.
 */
final class KeyDigest {

  static final int BYTES = 16;

  private KeyDigest() {}

  static byte[] of(Scope scope, IdempotencyKey key) {
    byte[][] parts = {
      utf8(scope.tenant()), utf8(scope.principal()), utf8(scope.operation()), utf8(key.value())
    };
    int length = 0;
    for (byte[] part : parts) {
      length += Integer.BYTES + part.length;
    }
    ByteBuffer input = ByteBuffer.allocate(length);
    for (byte[] part : parts) {
      input.putInt(part.length).put(part);
    }
    return Arrays.copyOf(sha256().digest(input.array()), BYTES);
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
