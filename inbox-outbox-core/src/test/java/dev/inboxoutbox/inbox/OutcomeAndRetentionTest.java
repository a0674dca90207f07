package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import dev.inboxoutbox.inbox.Inbox.Retention;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutcomeAndRetentionTest {

  @Test
  void anOutcomeBodyMustBeJson() {
    assertThatThrownBy(() -> Outcome.success("order 42 created"))
        .isInstanceOf(InvalidPayloadException.class);
  }

  @Test
  void anOutcomeBodyOver16KibIsRefused() {
    String big = "{\"x\":\"" + "a".repeat(Outcome.MAX_BODY_BYTES) + "\"}";
    assertThatThrownBy(() -> Outcome.success(big)).hasMessageContaining("at most 16384");
  }

  @Test
  void aRejectionIsMarkedAsSuch() {
    assertThat(Outcome.rejected("{\"reason\":\"cancelled\"}").isRejection()).isTrue();
    assertThat(Outcome.success().isRejection()).isFalse();
  }

  @Test
  void retentionDefaultsTo24HourOutcomesAnd7DayKeys() {
    assertThat(Retention.defaults())
        .isEqualTo(Retention.of(Duration.ofHours(24), Duration.ofDays(7)));
  }

  @Test
  void keysCannotExpireBeforeTheirOutcomes() {
    assertThatThrownBy(() -> Retention.of(Duration.ofDays(2), Duration.ofDays(1)))
        .hasMessageContaining("must be at least the outcome TTL");
  }

  @Test
  void aScopeWithoutTenantUsesTheEmptyTenantSoTheUniqueIndexHolds() {
    assertThat(new Scope(null, null, "orders").tenant()).isEmpty();
    assertThatThrownBy(() -> Scope.of(" ")).hasMessageContaining("needs an operation");
  }
}
