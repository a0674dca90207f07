package dev.inboxoutbox.inbox;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.IdempotencyKey.InvalidKeyException;
import dev.inboxoutbox.inbox.IdempotencyKey.InvalidKeyException.Reason;
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

  @Test
  void anHttpHeaderIsReadAsUtf8OctetsSoAKeyMeansWhatItMeansInAKafkaHeader() {
    for (String key :
        new String[] {"k-caf\u00e9", "\u65e5\u672c\u8a9e", "order-\ud83d\ude80", "plain-ascii"}) {
      // A servlet container hands each header octet over as one ISO-8859-1 character.
      String asTheContainerHandsItOver = new String(key.getBytes(UTF_8), ISO_8859_1);
      assertThat(IdempotencyKey.fromHttpHeader(asTheContainerHandsItOver).value()).isEqualTo(key);
    }
  }

  @Test
  void anHttpHeaderWhoseOctetsAreNotUtf8IsRefused() {
    String latin1Cafe = new String(new byte[] {'k', '-', 'c', 'a', 'f', (byte) 0xE9}, ISO_8859_1);
    assertThatThrownBy(() -> IdempotencyKey.fromHttpHeader(latin1Cafe))
        .isInstanceOfSatisfying(
            InvalidKeyException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_UTF8))
        .hasMessageContaining("UTF-8");
  }

  @Test
  void anAbsentHttpHeaderIsAMissingKey() {
    assertThatThrownBy(() -> IdempotencyKey.fromHttpHeader(null))
        .isInstanceOfSatisfying(
            InvalidKeyException.class, e -> assertThat(e.reason()).isEqualTo(Reason.MISSING));
  }

  private static void assertRefused(String value, Reason reason, String messagePart) {
    assertThatThrownBy(() -> IdempotencyKey.of(value))
        .isInstanceOfSatisfying(
            InvalidKeyException.class, e -> assertThat(e.reason()).isEqualTo(reason))
        .hasMessageContaining(messagePart);
  }
}
