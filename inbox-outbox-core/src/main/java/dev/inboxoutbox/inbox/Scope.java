package dev.inboxoutbox.inbox;

/**
 * What "the same key" means: uniqueness holds per (tenant, principal, operation), not for the bare
 * key. Two tenants or two users may use the same key string; one user reusing a key for another
 * operation does not collide. An absent tenant or principal is the empty string. Each component has
 * at most {@value #MAX_LENGTH} characters and no control characters. Create scopes with {@link
 * #of}.
 *
 * @param tenant tenant id, or {@code ""}
 * @param principal user, client or sender id, or {@code ""}
 * @param operation consumer group or operation name, for example {@code order-consumer} or {@code
 *     POST /orders}; required
 */
public record Scope(String tenant, String principal, String operation) {

  /** Longest accepted value of each component. */
  public static final int MAX_LENGTH = 255;

  public Scope {
    tenant = tenant == null ? "" : tenant;
    principal = principal == null ? "" : principal;
    if (operation == null || operation.isBlank()) {
      throw new IllegalArgumentException(
          "scope needs an operation (consumer group or operation name)");
    }
    requireValid("tenant", tenant);
    requireValid("principal", principal);
    requireValid("operation", operation);
  }

  /** A scope with no tenant and no principal. */
  public static Scope of(String operation) {
    return new Scope("", "", operation);
  }

  /** A scope per tenant and principal; null or empty means none. */
  public static Scope of(String tenant, String principal, String operation) {
    return new Scope(tenant, principal, operation);
  }

  /**
   * The same rule as for keys: PostgreSQL refuses NUL in text, and no control character is kept.
   */
  private static void requireValid(String name, String value) {
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "scope " + name + " has " + value.length() + " characters; at most " + MAX_LENGTH);
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new IllegalArgumentException(
            "scope " + name + " contains a control character at index " + i);
      }
    }
  }
}
