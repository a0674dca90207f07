package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.InvalidIdempotencyKeyException.Reason;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {

  @Test
  void aUuidIsAValidKey() {
    assertThat(IdempotencyKey.of("5f0c8e8e-8a43-4f4e-9d0a-1f6b2f1c9e11").value())
        .isEqualTo("5f0c8e8e-8a43-4f4e-9d0a-1f6b2f1c9e11");
  }

  @Test
  void aMissingKeyIsRefusedAsMissing() {
    assertRefused(null, Reason.MISSING, "missing");
  }

  @Test
  void aBlankKeyIsRefusedAsBlank() {
    assertRefused("  \t", Reason.BLANK, "blank");
  }

  @Test
  void aKeyOf255CharactersIsAcceptedAnd256AreRefused() {
    assertThat(IdempotencyKey.of("k".repeat(255)).value()).hasSize(255);
    assertRefused("k".repeat(256), Reason.TOO_LONG, "256 characters; at most 255");
  }

  @Test
  void aKeyWithAControlCharacterIsRefused() {
    assertRefused("abc\n123", Reason.CONTROL_CHARACTER, "index 3");
  }

  private static void assertRefused(String value, Reason reason, String messagePart) {
    assertThatThrownBy(() -> IdempotencyKey.of(value))
        .isInstanceOfSatisfying(
            InvalidIdempotencyKeyException.class, e -> assertThat(e.reason()).isEqualTo(reason))
        .hasMessageContaining(messagePart);
  }
}
