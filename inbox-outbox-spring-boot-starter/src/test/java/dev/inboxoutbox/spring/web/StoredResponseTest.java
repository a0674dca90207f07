package dev.inboxoutbox.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inboxoutbox.inbox.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class StoredResponseTest {

  @Test
  void aJsonAnswerComesBackByteForByteWithItsHeaders() {
    byte[] body = "{\"name\":\"gear\",\"id\":7}".getBytes(StandardCharsets.UTF_8);
    StoredResponse answer =
        new StoredResponse(
            201,
            Optional.of("application/json"),
            Map.of("Location", List.of("/widgets/7")),
            body,
            false);

    Outcome outcome = answer.toOutcome();
    StoredResponse replayed = StoredResponse.fromOutcome(outcome);

    assertThat(outcome.isRejection()).isFalse();
    assertThat(outcome.code()).hasValue(201);
    assertThat(replayed.body()).isEqualTo(body);
    assertThat(replayed.status()).isEqualTo(201);
    assertThat(replayed.contentType()).contains("application/json");
    assertThat(replayed.headers()).containsEntry("Location", List.of("/widgets/7"));
  }

  @Test
  void aBodyThatIsNotUtf8TextIsKeptAsItsOctets() {
    byte[] body = {(byte) 0xff, 0, 1, (byte) 0xc3};
    StoredResponse answer =
        new StoredResponse(200, Optional.of("application/octet-stream"), Map.of(), body, false);

    assertThat(StoredResponse.fromOutcome(answer.toOutcome()).body()).isEqualTo(body);
  }

  @Test
  void a4xxAnswerIsStoredAsARejection() {
    StoredResponse answer = new StoredResponse(409, Optional.empty(), Map.of(), new byte[0], true);

    Outcome outcome = answer.toOutcome();

    assertThat(outcome.isRejection()).isTrue();
    assertThat(StoredResponse.fromOutcome(outcome).containerError()).isTrue();
  }

  @Test
  void anOutcomeStoredByAConsumerReplaysItsCodeAndJsonBody() {
    Outcome consumed =
        new Outcome(
            Outcome.Kind.SUCCESS, OptionalInt.of(201), Optional.of("{\"orderId\":\"o-1\"}"));
    Outcome rejected = Outcome.rejected("{\"error\":\"out_of_stock\"}");

    StoredResponse success = StoredResponse.fromOutcome(consumed);
    StoredResponse rejection = StoredResponse.fromOutcome(rejected);

    assertThat(success.status()).isEqualTo(201);
    assertThat(new String(success.body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"orderId\":\"o-1\"}");
    assertThat(success.contentType()).contains("application/json");
    assertThat(rejection.status()).isEqualTo(409);
  }

  @Test
  void anAnswerTooLargeToStoreIsRefusedWithTheReason() {
    byte[] body = "x".repeat(Outcome.MAX_BODY_BYTES).getBytes(StandardCharsets.UTF_8);
    StoredResponse answer =
        new StoredResponse(200, Optional.of("text/plain"), Map.of(), body, false);

    assertThatThrownBy(answer::toOutcome)
        .isInstanceOf(UnstorableResponseException.class)
        .hasMessageContaining("at most " + Outcome.MAX_BODY_BYTES);
  }
}
