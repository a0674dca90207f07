package dev.inboxoutbox.inbox;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * One key to claim in a scope, with the hash of the request it guards. The hash is SHA-256 of the
 * request's canonical form: JSON members sorted by name, no whitespace, numbers normalised, so a
 * sender that reorders fields or re-serialises a payload still produces the same hash.
 */
public final class ClaimRequest {
  private final Scope scope;
  private final IdempotencyKey key;
  private final RequestHash requestHash;
  // Computed once: a request's digest is bound by its claim, again by a retried claim or a
  // lookup, and by the completion of its outcome.
  private final byte[] keyDigest;

  private ClaimRequest(Scope scope, IdempotencyKey key, RequestHash requestHash) {
    this.scope = Objects.requireNonNull(scope, "scope");
    this.key = Objects.requireNonNull(key, "key");
    this.requestHash = Objects.requireNonNull(requestHash, "requestHash");
    this.keyDigest = KeyDigest.of(scope, key);
  }

  /** The key's digest, the inbox's primary key; callers in this package never change it. */
  byte[] keyDigest() {
    return keyDigest;
  }

  /** A JSON request; throws {@link Inbox.InvalidPayloadException} if it is not JSON. */
  public static ClaimRequest ofJson(Scope scope, IdempotencyKey key, String json) {
    return new ClaimRequest(scope, key, RequestHash.ofJson(json));
  }

  /** A UTF-8 JSON request; throws {@link Inbox.InvalidPayloadException} if it is not JSON. */
  public static ClaimRequest ofJson(Scope scope, IdempotencyKey key, byte[] json) {
    return new ClaimRequest(scope, key, RequestHash.ofJson(json));
  }

  /**
   * A JSON request already parsed, best by {@link #parseJson}; throws {@link
   * InvalidPayloadException} for a number out of the hashable range.
   */
  public static ClaimRequest ofJson(Scope scope, IdempotencyKey key, JsonNode json) {
    return new ClaimRequest(scope, key, RequestHash.ofJsonTree(json));
  }

  /** A request that is not JSON: its bytes hash as they are. */
  public static ClaimRequest ofBytes(Scope scope, IdempotencyKey key, byte[] body) {
    return new ClaimRequest(scope, key, RequestHash.ofBytes(body));
  }

  /**
   * An HTTP request. The body hashes as JSON when {@code jsonBody} (the same hash a consumer
   * computes for the same payload, so an endpoint and a topic can share a scope), else as its
   * bytes. A non-null {@code target} (path and query) joins the hash: give it when the URL varies
   * within one operation, so {@code /orders/o-1/cancel} and {@code /orders/o-2/cancel} under one
   * key are a reused key, not a replay of each other.
   *
   * @throws Inbox.InvalidPayloadException if {@code jsonBody} and the body is not JSON
   */
  public static ClaimRequest ofHttp(
      Scope scope, IdempotencyKey key, String target, byte[] body, boolean jsonBody) {
    RequestHash bodyHash =
        body.length > 0 && jsonBody ? RequestHash.ofJson(body) : RequestHash.ofBytes(body);
    return new ClaimRequest(
        scope, key, target == null ? bodyHash : RequestHash.ofTarget(target, bodyHash));
  }

  /**
   * Parses UTF-8 JSON as strictly as the hash reads it (duplicate members and trailing content
   * rejected, decimals exact, numbers in the hashable range), for callers that need the tree and
   * the claim: parse once, then {@link #ofJson(Scope, IdempotencyKey, JsonNode)}.
   *
   * @throws Inbox.InvalidPayloadException if it is not such JSON
   */
  public static JsonNode parseJson(byte[] json) {
    return CanonicalJson.parse(json);
  }

  public Scope scope() {
    return scope;
  }

  public IdempotencyKey key() {
    return key;
  }

  /** The request's SHA-256, 64 lower-case hex digits. */
  public String requestHash() {
    return requestHash.hex();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ClaimRequest that
        && scope.equals(that.scope)
        && key.equals(that.key)
        && requestHash.equals(that.requestHash);
  }

  @Override
  public int hashCode() {
    return Objects.hash(scope, key, requestHash);
  }

  @Override
  public String toString() {
    return "ClaimRequest[" + scope + ", key=" + key + ", requestHash=" + requestHash + "]";
  }
}
