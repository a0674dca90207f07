package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.ChargeBook.ChargeOutcome;
import dev.inboxoutbox.provider.ChargeBook.Created;
import dev.inboxoutbox.provider.ChargeBook.KeyReused;
import dev.inboxoutbox.provider.ChargeBook.Replayed;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.io.IOException;

/**
 * {@code POST /v1/charges}: the checks and answers of every idempotent post ({@link
 * IdempotentPost}: {@code 400} for a missing, too long or invalid request, {@code 503} during a
 * simulated outage, before anything is stored), then what the {@link ChargeBook} decided: {@code
 * 201} for a new charge, {@code 200} with {@code Idempotent-Replayed: true} for a replay, {@code
 * 422} for a key reused with other parameters.
 */
final class ChargesEndpoint extends IdempotentPost<ChargeRequest> {

  static final String PATH = "/v1/charges";

  private final ChargeBook charges;

  ChargesEndpoint(ObjectMapper json, JsonResponses responses, ChargeBook charges) {
    super(PATH, json, responses);
    this.charges = charges;
  }

  @Override
  ChargeRequest parse(ObjectMapper json, byte[] body) throws InvalidRequestException {
    return ChargeRequest.parse(json, body);
  }

  @Override
  void decide(HttpExchange exchange, String key, ChargeRequest request) throws IOException {
    ChargeOutcome outcome = charges.charge(key, request, TraceContext.of(exchange));
    if (outcome instanceof Created created) {
      created(exchange, created.response());
    } else if (outcome instanceof Replayed replayed) {
      replayed(exchange, replayed.response());
    } else if (outcome instanceof KeyReused reused) {
      ChargeRequest original = reused.original();
      keyReused(
          exchange,
          key,
          "payment "
              + original.paymentId()
              + ", "
              + original.amountCents()
              + " "
              + original.currency());
    }
  }
}
