package dev.inboxoutbox.payment;

import dev.inboxoutbox.consumer.DeadLetterReason;
import dev.inboxoutbox.consumer.HandlerContext;
import dev.inboxoutbox.consumer.IncomingMessage;
import dev.inboxoutbox.consumer.MessageHandler;
import dev.inboxoutbox.consumer.PoisonMessageException;
import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import java.sql.SQLException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The frame of a consumer that asks the provider for something about one payment (a charge, a
 * refund) under the payment's own idempotency key, then records the provider's id on the payment.
 *
 * <p>The HTTP call cannot join the database transaction, so it may run more than once for one
 * payment (a rolled-back batch, a crash before the commit, a redelivery). That is safe because the
 * key is derived from the payment: the provider answers every repeat with what it already made. A
 * provider that stays unavailable makes the batch roll back and come back later ({@link
 * ProviderUnavailableException}); nothing is dead-lettered for an outage.
 *
 * @param <R> what the event asks of the provider, besides the payment
 */
abstract class ProviderRequestHandler<R> implements MessageHandler {

  private final String eventType;
  private final String what;
  private final String keyName;
  private final PaymentEvents events;
  private final Payments payments;
  private final PaymentUpdates updates;

  /**
   * @param eventType the one event type this consumer takes
   * @param what what the provider makes ({@code charge}, {@code refund})
   * @param keyName the key's name in the dead-letter reason of an event with another key
   */
  ProviderRequestHandler(
      String eventType, String what, String keyName, Payments payments, PaymentEvents events) {
    this.eventType = eventType;
    this.what = what;
    this.keyName = keyName;
    this.payments = payments;
    this.events = events;
    this.updates = new PaymentUpdates(payments);
  }

  /** The event's own fields, read after {@code paymentId} and before {@code idempotencyKey}. */
  abstract R request(JsonNode payload);

  /** The provider key the event must carry for this payment. */
  abstract String idempotencyKey(String paymentId);

  /** The rejection's error code when the event does not fit the payment it names. */
  abstract Optional<String> mismatch(Payment payment, R request);

  /** Whether the provider still has to be asked. */
  abstract Decision decide(Payment payment);

  /**
   * Asks the provider; its id of what it made.
   *
   * @throws ProviderRefusedException when the provider refuses for good
   */
  abstract String callProvider(String idempotencyKey, String paymentId, R request);

  /** Records the provider's id if the payment is still at the version read. */
  abstract boolean record(Payment read, PaymentStatus next, String providerId);

  @Override
  public final Outcome handle(IncomingMessage message, HandlerContext context) throws SQLException {
    String type = message.type().orElse("");
    if (!type.equals(eventType)) {
      throw PoisonMessageException.unknownType(type);
    }
    JsonNode payload = message.payload();
    String paymentId = Payloads.text(payload, "paymentId");
    R request = request(payload);
    String idempotencyKey = Payloads.text(payload, "idempotencyKey");
    if (!idempotencyKey.equals(idempotencyKey(paymentId))) {
      throw PoisonMessageException.malformed(
          "idempotencyKey "
              + idempotencyKey
              + " is not the payment's "
              + keyName
              + " "
              + idempotencyKey(paymentId));
    }
    Optional<Payment> found = payments.find(paymentId);
    if (found.isEmpty()) {
      return Outcome.rejected(events.outcome("error", "unknown_payment", "paymentId", paymentId));
    }
    Payment payment = found.get();
    Optional<String> mismatch = mismatch(payment, request);
    if (mismatch.isPresent()) {
      return Outcome.rejected(events.outcome("error", mismatch.get(), "paymentId", paymentId));
    }
    return updates.apply(payment, new Request(idempotencyKey, request), "recording its " + what);
  }

  /**
   * The payment's change: the provider is asked on the first write, every later write re-records
   * its id.
   */
  private final class Request implements PaymentUpdates.Change {

    private final String idempotencyKey;
    private final R request;
    private String providerId;

    Request(String idempotencyKey, R request) {
      this.idempotencyKey = idempotencyKey;
      this.request = request;
    }

    @Override
    public Decision decide(Payment payment) {
      return ProviderRequestHandler.this.decide(payment);
    }

    @Override
    public Optional<Outcome> write(Payment read, PaymentStatus next) {
      if (providerId == null) {
        providerId = askProvider(read.paymentId());
      }
      if (!record(read, next, providerId)) {
        return Optional.empty();
      }
      return Optional.of(Outcome.success());
    }

    private String askProvider(String paymentId) {
      try {
        return callProvider(idempotencyKey, paymentId, request);
      } catch (ProviderRefusedException refused) {
        // 422: the provider holds this key for other parameters; any other refusal (no such charge,
        // nothing to refund) would be the same on a retry. Either way a person has to look.
        DeadLetterReason reason =
            refused.status() == 422 ? DeadLetterReason.CONFLICT : DeadLetterReason.HANDLER_ERROR;
        throw new PoisonMessageException(reason, refused.getMessage());
      }
    }

    @Override
    public Outcome alreadyApplied(Payment payment) {
      // Sent already, or the provider's webhook overtook this consumer and settled the payment.
      return Outcome.success();
    }

    @Override
    public Outcome rejected(Payment payment, String reason) {
      return Outcome.rejected(events.rejection(payment, reason));
    }
  }
}
