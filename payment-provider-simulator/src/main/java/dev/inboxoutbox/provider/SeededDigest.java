package dev.inboxoutbox.provider;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Values fixed by the seed and a key alone (SHA-256 of both), never drawn from a shared random
 * sequence: a key's charge id and fate are the same on every run, whatever the request order.
 */
final class SeededDigest {

  private static final HexFormat HEX = HexFormat.of();

  private final long seed;

  SeededDigest(long seed) {
    this.seed = seed;
  }

  /** A number in [0, 1). */
  double fraction(String purpose, String key) {
    long bits = ByteBuffer.wrap(digest(purpose, key)).getLong() >>> 11;
    return bits / (double) (1L << 53);
  }

  /** 64 hexadecimal digits. */
  String hex(String purpose, String key) {
    return HEX.formatHex(digest(purpose, key));
  }

  private byte[] digest(String purpose, String key) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      return sha256.digest(
          (purpose + "\u0000" + seed + "\u0000" + key).getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
