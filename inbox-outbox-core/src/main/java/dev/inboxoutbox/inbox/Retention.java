package dev.inboxoutbox.inbox;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a claim is kept, in two phases: the outcome body is dropped after {@code outcomeTtl}
 * (less storage, less personal data), the key row itself after {@code keyTtl}. Until the key row is
 * gone, a repeat is still recognised as a duplicate; after it, see the too-old guard in the README.
 *
 * <p>Choose {@code keyTtl} from how late retries can really arrive (taps: seconds, flaky networks:
 * minutes, mobile reconnects and client retries: hours) and the cost of a late duplicate. Stripe
 * keeps keys for at least 24 hours, Adyen for at least 31 days.
 */
public record Retention(Duration outcomeTtl, Duration keyTtl) {

  public static final Duration DEFAULT_OUTCOME_TTL = Duration.ofHours(24);
  public static final Duration DEFAULT_KEY_TTL = Duration.ofDays(7);

  public Retention {
    Objects.requireNonNull(outcomeTtl, "outcomeTtl");
    Objects.requireNonNull(keyTtl, "keyTtl");
    if (outcomeTtl.isNegative() || outcomeTtl.isZero()) {
      throw new IllegalArgumentException("outcome TTL must be positive; was " + outcomeTtl);
    }
    if (keyTtl.compareTo(outcomeTtl) < 0) {
      throw new IllegalArgumentException(
          "key TTL (" + keyTtl + ") must be at least the outcome TTL (" + outcomeTtl + ")");
    }
  }

  /** Outcome bodies 24 hours, keys 7 days. */
  public static Retention defaults() {
    return new Retention(DEFAULT_OUTCOME_TTL, DEFAULT_KEY_TTL);
  }
}
