package dev.inboxoutbox.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import dev.inboxoutbox.provider.RefundBook.ChargeFailed;
import dev.inboxoutbox.provider.RefundBook.Created;
import dev.inboxoutbox.provider.RefundBook.ExceedsCharge;
import dev.inboxoutbox.provider.RefundBook.KeyReused;
import dev.inboxoutbox.provider.RefundBook.NoSuchCharge;
import dev.inboxoutbox.provider.RefundBook.RefundOutcome;
import dev.inboxoutbox.provider.RefundBook.Replayed;
import dev.inboxoutbox.provider.RequestBody.InvalidRequestException;
import java.io.IOException;

/**
 * {@code POST /v1/refunds}: the checks and answers of every idempotent post ({@link
 * IdempotentPost}), then what the {@link RefundBook} decided: {@code 201} for a new refund, {@code
 * 200} with {@code Idempotent-Replayed: true} for a replay, {@code 422} for a key reused with other
 * parameters, {@code 404} for an unknown charge, {@code 400} for a failed charge or a refund beyond
 * what the charge took.
 */
final class RefundsEndpoint extends IdempotentPost<RefundRequest> {

  static final String PATH = "/v1/refunds";

  private final RefundBook refunds;

  RefundsEndpoint(ObjectMapper json, JsonResponses responses, RefundBook refunds) {
    super(PATH, json, responses);
    this.refunds = refunds;
  }

  @Override
  RefundRequest parse(ObjectMapper json, byte[] body) throws InvalidRequestException {
    return RefundRequest.parse(json, body);
  }

  @Override
  void decide(HttpExchange exchange, String key, RefundRequest request) throws IOException {
    RefundOutcome outcome = refunds.refund(key, request, TraceContext.of(exchange));
    if (outcome instanceof Created created) {
      created(exchange, created.response());
    } else if (outcome instanceof Replayed replayed) {
      replayed(exchange, replayed.response());
    } else if (outcome instanceof KeyReused reused) {
      keyReused(
          exchange,
          key,
          "charge " + reused.original().chargeId() + ", " + reused.original().amountCents());
    } else if (outcome instanceof NoSuchCharge missing) {
      responses.error(exchange, 404, "no_such_charge", "no charge " + missing.chargeId());
    } else if (outcome instanceof ChargeFailed failed) {
      responses.error(
          exchange,
          400,
          "charge_not_refundable",
          "charge " + failed.chargeId() + " failed: it took no money");
    } else if (outcome instanceof ExceedsCharge exceeds) {
      responses.error(
          exchange,
          400,
          "refund_exceeds_charge",
          "charge "
              + exceeds.charge().chargeId()
              + " took "
              + exceeds.charge().amountCents()
              + ", of which "
              + exceeds.alreadyRefunded()
              + " is refunded already");
    }
  }
}
