package dev.inboxoutbox.inbox;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a duplicate gets back: the stored result of the first attempt. Successes and business
 * rejections are both outcomes, so a retried "pay" that was rejected because the order was
 * cancelled is rejected again, not re-evaluated. Transient failures are not outcomes: they roll the
 * transaction back and leave no claim. Create outcomes with {@link #success} and {@link #rejected}.
 *
 * @param kind success or business rejection
 * @param code an optional status code (an HTTP status, for HTTP operations)
 * @param body an optional small JSON document, for example the created order id or the reason
 */
public record Outcome(Kind kind, OptionalInt code, Optional<String> body) {

  /** Largest stored body: outcomes are for ids and reasons, not documents. */
  public static final int MAX_BODY_BYTES = 16 * 1024;

  /** Success or business rejection. */
  public enum Kind {
    SUCCESS,
    REJECTED;

    Inbox.Status status() {
      return this == SUCCESS ? Inbox.Status.COMPLETED : Inbox.Status.FAILED;
    }
  }

  public Outcome {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(body, "body");
    // Stored as jsonb, which re-spaces and re-orders keys; the canonical form makes an outcome read
    // back equal to the one recorded.
    body = body.map(Outcome::canonicalSmallJson);
  }

  public static Outcome success() {
    return new Outcome(Kind.SUCCESS, OptionalInt.empty(), Optional.empty());
  }

  /** A success carrying a small JSON body. */
  public static Outcome success(String jsonBody) {
    return new Outcome(Kind.SUCCESS, OptionalInt.empty(), Optional.of(jsonBody));
  }

  /** A business rejection carrying its reason as a small JSON body. */
  public static Outcome rejected(String jsonReason) {
    return new Outcome(Kind.REJECTED, OptionalInt.empty(), Optional.of(jsonReason));
  }

  /** A success with a status code (an HTTP status, for HTTP operations) and a small JSON body. */
  public static Outcome success(int code, String jsonBody) {
    return new Outcome(Kind.SUCCESS, OptionalInt.of(code), Optional.ofNullable(jsonBody));
  }

  /** A business rejection with a status code and its reason as a small JSON body. */
  public static Outcome rejected(int code, String jsonReason) {
    return new Outcome(Kind.REJECTED, OptionalInt.of(code), Optional.ofNullable(jsonReason));
  }

  public boolean isRejection() {
    return kind == Kind.REJECTED;
  }

  private static String canonicalSmallJson(String json) {
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BODY_BYTES) {
      throw new IllegalArgumentException(
          "outcome body has " + bytes + " bytes; at most " + MAX_BODY_BYTES + " are stored");
    }
    return new String(CanonicalJson.toBytes(CanonicalJson.parse(json)), StandardCharsets.UTF_8);
  }
}
