package dev.inboxoutbox.payment;

/**
 * Where a payment is: requested, sent to the provider, and then captured or failed; for a cancelled
 * order, called off before the money was taken, or refunded.
 */
public enum PaymentStatus {
  REQUESTED,
  CHARGE_REQUESTED,
  CAPTURED,
  FAILED,
  /** The order was cancelled before the provider took any money; none will be kept. */
  CANCELLED,
  /** The order was cancelled after the charge succeeded: the refund is on its way. */
  REFUND_REQUESTED,
  /** The provider gave the money back. */
  REFUNDED;

  /** The charge's own outcome is known and final. */
  public boolean isFinal() {
    return this == CAPTURED || this == FAILED;
  }
}
