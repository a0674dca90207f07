package dev.inboxoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.Inbox.InvalidPayloadException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestHashTest {

  @Test
  void fieldOrderAndWhitespaceDoNotChangeTheHash() {
    assertThat(RequestHash.ofJson("{\"b\": [1, {\"y\": 2, \"x\": 1}], \"a\": \"s\"}"))
        .isEqualTo(RequestHash.ofJson("{\"a\":\"s\",\"b\":[1,{\"x\":1,\"y\":2}]}"));
  }

  @Test
  void theHashIsSha256OfTheCanonicalForm() {
    assertThat(RequestHash.ofJson("{ \"b\": 2, \"a\": 1.50 }"))
        .isEqualTo(RequestHash.ofBytes("{\"a\":1.5,\"b\":2}".getBytes(StandardCharsets.UTF_8)));
    // Computed independently: printf '{"a":1.5,"b":2}' | sha256sum
    assertThat(RequestHash.ofJson("{\"b\":2,\"a\":1.5}").hex())
        .isEqualTo("0d3dca5cdef44c0cd2d025eed57a39b476c4975913d96266f4992fc53fdc3d61");
  }

  @Test
  void equalNumbersSpelledDifferentlyHashTheSame() {
    assertThat(RequestHash.ofJson("{\"qty\":1}"))
        .isEqualTo(RequestHash.ofJson("{\"qty\":1.0}"))
        .isEqualTo(RequestHash.ofJson("{\"qty\":1e0}"));
    assertThat(RequestHash.ofJson("[-0]")).isEqualTo(RequestHash.ofJson("[0]"));
  }

  @Test
  void differentContentHashesDifferently() {
    assertThat(RequestHash.ofJson("{\"qty\":1}")).isNotEqualTo(RequestHash.ofJson("{\"qty\":2}"));
    assertThat(RequestHash.ofJson("[1,2]")).isNotEqualTo(RequestHash.ofJson("[2,1]"));
    assertThat(RequestHash.ofJson("{\"a\":\"1\"}")).isNotEqualTo(RequestHash.ofJson("{\"a\":1}"));
  }

  @Test
  void malformedJsonIsRefusedWithTheParserReason() {
    assertThatThrownBy(() -> RequestHash.ofJson("{\"a\":"))
        .isInstanceOf(InvalidPayloadException.class)
        .hasMessageStartingWith("payload is not valid JSON");
  }

  @Test
  void duplicateMemberNamesAreRefusedRatherThanGuessed() {
    assertThatThrownBy(() -> RequestHash.ofJson("{\"a\":1,\"a\":2}"))
        .isInstanceOf(InvalidPayloadException.class)
        .hasMessageContaining("Duplicate Object property \"a\"");
  }

  @Test
  void trailingContentAndEmptyPayloadsAreRefused() {
    assertThatThrownBy(() -> RequestHash.ofJson("{} {}"))
        .isInstanceOf(InvalidPayloadException.class);
    assertThatThrownBy(() -> RequestHash.ofJson("")).isInstanceOf(InvalidPayloadException.class);
    assertThatThrownBy(() -> RequestHash.ofJson((String) null))
        .isInstanceOf(InvalidPayloadException.class);
  }

  @Test
  void absurdExponentsAreRefusedInsteadOfExpanded() {
    assertThatThrownBy(() -> RequestHash.ofJson("[1e999999]"))
        .isInstanceOf(InvalidPayloadException.class)
        .hasMessageContaining("out of the supported range");
  }
}
