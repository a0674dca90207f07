package dev.inboxoutbox.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The provider's webhook signature, Stripe style: header {@code Provider-Signature: t=<unix
 * seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>}. The provider signs with it, receivers
 * verify with it.
 *
 * <p>The timestamp is inside the signed text, so an attacker who captured one delivery cannot
 * replay it later: verification refuses timestamps further than the tolerance from now. Signatures
 * are compared in constant time so response timing tells nothing about how many bytes matched.
 * Several {@code v1} entries are accepted (any one may match), which lets a sender sign with an old
 * and a new secret while they are rotated.
 */
public final class WebhookSignature {

  public static final String HEADER = "Provider-Signature";
  public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);

  private static final String ALGORITHM = "HmacSHA256";
  private static final HexFormat HEX = HexFormat.of();

  private final SecretKeySpec key;
  private final Duration tolerance;

  /** Why a header was accepted or refused. */
  public enum Verification {
    VALID,
    /** No header at all. */
    MISSING,
    /** Not {@code t=<seconds>,v1=<hex>}. */
    MALFORMED,
    /** No {@code v1} matches the body: tampered body, wrong secret or forged header. */
    MISMATCH,
    /**
     * Correctly signed, but the timestamp is outside the tolerance: a replayed or delayed delivery.
     */
    STALE;

    public boolean isValid() {
      return this == VALID;
    }
  }

  public WebhookSignature(String secret) {
    this(secret, DEFAULT_TOLERANCE);
  }

  public WebhookSignature(String secret, Duration tolerance) {
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("a webhook secret is required");
    }
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
    this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
    if (tolerance.isNegative()) {
      throw new IllegalArgumentException("tolerance must not be negative");
    }
  }

  public Duration tolerance() {
    return tolerance;
  }

  /** The header value for {@code body} signed at {@code at}. */
  public String sign(byte[] body, Instant at) {
    long timestamp = at.getEpochSecond();
    return "t=" + timestamp + ",v1=" + HEX.formatHex(mac(timestamp, body));
  }

  /** Checks the header against the body and {@code now}; never throws for bad input. */
  public Verification verify(String header, byte[] body, Instant now) {
    if (header == null || header.isBlank()) {
      return Verification.MISSING;
    }
    Long timestamp = null;
    List<String> signatures = new ArrayList<>();
    for (String part : header.split(",")) {
      int equals = part.indexOf('=');
      if (equals <= 0) {
        return Verification.MALFORMED;
      }
      String name = part.substring(0, equals).trim();
      String value = part.substring(equals + 1).trim();
      if (name.equals("t")) {
        try {
          timestamp = Long.parseLong(value);
        } catch (NumberFormatException e) {
          return Verification.MALFORMED;
        }
      } else if (name.equals("v1")) {
        signatures.add(value);
      }
      // Other schemes (v0, future versions) are ignored, as Stripe's receivers do.
    }
    if (timestamp == null || signatures.isEmpty()) {
      return Verification.MALFORMED;
    }
    byte[] expected = mac(timestamp, body == null ? new byte[0] : body);
    boolean matched = false;
    for (String signature : signatures) {
      matched |= MessageDigest.isEqual(expected, decodeHex(signature));
    }
    if (!matched) {
      return Verification.MISMATCH;
    }
    long ageSeconds = Math.abs(now.getEpochSecond() - timestamp);
    return ageSeconds > tolerance.toSeconds() ? Verification.STALE : Verification.VALID;
  }

  private byte[] mac(long timestamp, byte[] body) {
    try {
      // A Mac instance is stateful and not thread-safe; one per call keeps verify() reentrant.
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }

  private static byte[] decodeHex(String hex) {
    try {
      return HEX.parseHex(hex.toLowerCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // Compared like any other wrong signature, so a malformed one costs the same time.
      return new byte[0];
    }
  }
}
