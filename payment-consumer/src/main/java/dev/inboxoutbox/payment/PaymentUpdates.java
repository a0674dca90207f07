package dev.inboxoutbox.payment;

import dev.inboxoutbox.inbox.Outcome;
import dev.inboxoutbox.payment.PaymentTransitions.Decision;
import java.sql.SQLTransactionRollbackException;
import java.util.Optional;

/**
 * Moves one payment on by a transition of {@link PaymentTransitions} under the version check of
 * {@link Payments}: decide on the payment as read, write the decision if the row is still at that
 * version, else read it again and decide again, so a race with another consumer never overwrites
 * what that consumer wrote. A payment that keeps changing ends the batch with a serialization
 * failure (SQLSTATE 40001), which the consumer runtime retries later.
 */
final class PaymentUpdates {

  static final int WRITE_ATTEMPTS = 5;

  /** One change of a payment, as the caller judges, writes and reports it. */
  interface Change {

    /** What the change means for the payment as read. */
    Decision decide(Payment payment);

    /**
     * Writes {@code next} (and emits what goes with it) if the payment is still at the version of
     * {@code read}: the outcome, or empty when another change came first.
     */
    Optional<Outcome> write(Payment read, PaymentStatus next);

    /** The payment already is where the change leads: nothing is written. */
    Outcome alreadyApplied(Payment payment);

    /** The change contradicts the payment: nothing is written. */
    Outcome rejected(Payment payment, String reason);
  }

  private final Payments payments;

  PaymentUpdates(Payments payments) {
    this.payments = payments;
  }

  /**
   * Applies {@code change} starting from {@code read}; {@code doing} ends the message of the
   * serialization failure ("payment p-1 kept changing while {@code doing}").
   */
  Outcome apply(Payment read, Change change, String doing) throws SQLTransactionRollbackException {
    Payment payment = read;
    for (int writes = 0; ; writes++) {
      Decision decision = change.decide(payment);
      switch (decision.verdict()) {
        case ALREADY_APPLIED:
          return change.alreadyApplied(payment);
        case REJECT:
          return change.rejected(payment, decision.reason());
        default:
          break;
      }
      if (writes == WRITE_ATTEMPTS) {
        throw new SQLTransactionRollbackException(
            "payment " + payment.paymentId() + " kept changing while " + doing, "40001");
      }
      Optional<Outcome> written = change.write(payment, decision.next());
      if (written.isPresent()) {
        return written.get();
      }
      String paymentId = payment.paymentId();
      // Payments are never deleted: a row read once is there to be read again.
      payment =
          payments
              .find(paymentId)
              .orElseThrow(() -> new IllegalStateException("payment " + paymentId + " vanished"));
    }
  }
}
