package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScopeTest {

  @Test
  void anAbsentTenantAndPrincipalAreEmpty() {
    Scope scope = Scope.of(null, null, "order-consumer");
    assertThat(scope.tenant()).isEmpty();
    assertThat(scope.principal()).isEmpty();
  }

  @Test
  void aControlCharacterInAnyComponentIsRefusedBeforeTheDatabaseSeesIt() {
    // PostgreSQL refuses NUL in text; every control character is refused, as in keys.
    assertThatThrownBy(() -> Scope.of("acme\u0000", "", "order-consumer"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tenant")
        .hasMessageContaining("control character at index 4");
    assertThatThrownBy(() -> Scope.of("", "\u0000", "order-consumer"))
        .hasMessageContaining("principal");
    assertThatThrownBy(() -> Scope.of("", "", "orders\n")).hasMessageContaining("operation");
  }

  @Test
  void aComponentLongerThanTheLimitIsRefused() {
    assertThatThrownBy(() -> Scope.of("t".repeat(Scope.MAX_LENGTH + 1), "", "order-consumer"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tenant has 256 characters");
  }
}
