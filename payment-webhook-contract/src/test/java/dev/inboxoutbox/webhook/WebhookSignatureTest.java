package dev.inboxoutbox.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.webhook.WebhookSignature.Verification;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {

  private static final byte[] BODY = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
  private static final Instant SIGNED_AT = Instant.ofEpochSecond(1_700_000_000L);

  private final WebhookSignature signature = new WebhookSignature("whsec_test");

  @Test
  void signsTheTimestampAndBodyWithHmacSha256() {
    // Pinned with: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
    assertThat(signature.sign(BODY, SIGNED_AT))
        .isEqualTo(
            "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789");
  }

  @Test
  void acceptsItsOwnSignatureWithinTheTolerance() {
    String header = signature.sign(BODY, SIGNED_AT);
    assertThat(signature.verify(header, BODY, SIGNED_AT)).isEqualTo(Verification.VALID);
    assertThat(signature.verify(header, BODY, SIGNED_AT.plusSeconds(300)))
        .isEqualTo(Verification.VALID);
    assertThat(signature.verify(header, BODY, SIGNED_AT.minusSeconds(300)))
        .isEqualTo(Verification.VALID);
    String upperCaseHex =
        "t=1700000000,v1=" + header.substring(header.indexOf("v1=") + 3).toUpperCase();
    assertThat(signature.verify(upperCaseHex, BODY, SIGNED_AT)).isEqualTo(Verification.VALID);
  }

  @Test
  void refusesATamperedBody() {
    String header = signature.sign(BODY, SIGNED_AT);
    byte[] tampered = "{\"a\":2}".getBytes(StandardCharsets.UTF_8);
    assertThat(signature.verify(header, tampered, SIGNED_AT)).isEqualTo(Verification.MISMATCH);
  }

  @Test
  void refusesAnotherSecret() {
    String header = new WebhookSignature("whsec_other").sign(BODY, SIGNED_AT);
    assertThat(signature.verify(header, BODY, SIGNED_AT)).isEqualTo(Verification.MISMATCH);
  }

  @Test
  void refusesAShiftedTimestampBecauseItIsSigned() {
    String header = signature.sign(BODY, SIGNED_AT).replace("t=1700000000", "t=1700000100");
    assertThat(signature.verify(header, BODY, SIGNED_AT.plusSeconds(100)))
        .isEqualTo(Verification.MISMATCH);
  }

  @Test
  void refusesStaleAndFutureTimestamps() {
    String header = signature.sign(BODY, SIGNED_AT);
    assertThat(signature.verify(header, BODY, SIGNED_AT.plusSeconds(301)))
        .isEqualTo(Verification.STALE);
    assertThat(signature.verify(header, BODY, SIGNED_AT.minusSeconds(301)))
        .isEqualTo(Verification.STALE);
    WebhookSignature strict = new WebhookSignature("whsec_test", Duration.ofSeconds(10));
    assertThat(strict.verify(header, BODY, SIGNED_AT.plusSeconds(11)))
        .isEqualTo(Verification.STALE);
  }

  @Test
  void refusesMissingAndMalformedHeaders() {
    assertThat(signature.verify(null, BODY, SIGNED_AT)).isEqualTo(Verification.MISSING);
    assertThat(signature.verify(" ", BODY, SIGNED_AT)).isEqualTo(Verification.MISSING);
    assertThat(signature.verify("garbage", BODY, SIGNED_AT)).isEqualTo(Verification.MALFORMED);
    assertThat(signature.verify("t=abc,v1=00", BODY, SIGNED_AT)).isEqualTo(Verification.MALFORMED);
    assertThat(signature.verify("t=1700000000", BODY, SIGNED_AT)).isEqualTo(Verification.MALFORMED);
    assertThat(signature.verify("v1=00", BODY, SIGNED_AT)).isEqualTo(Verification.MALFORMED);
    assertThat(signature.verify("t=1700000000,v1=not-hex", BODY, SIGNED_AT))
        .isEqualTo(Verification.MISMATCH);
  }

  @Test
  void acceptsAnyOfSeveralSignaturesDuringSecretRotation() {
    String current = signature.sign(BODY, SIGNED_AT);
    String old = new WebhookSignature("whsec_old").sign(BODY, SIGNED_AT);
    String both = old + "," + current.substring(current.indexOf("v1="));
    assertThat(signature.verify(both, BODY, SIGNED_AT)).isEqualTo(Verification.VALID);
  }

  @Test
  void needsASecret() {
    assertThatThrownBy(() -> new WebhookSignature("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new WebhookSignature(null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
