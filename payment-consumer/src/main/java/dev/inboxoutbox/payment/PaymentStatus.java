package dev.inboxoutbox.payment;

/** Where a payment is: requested, sent to the provider, and then captured or failed for good. */
public enum PaymentStatus {
  REQUESTED,
  CHARGE_REQUESTED,
  CAPTURED,
  FAILED;

  public boolean isFinal() {
    return this == CAPTURED || this == FAILED;
  }
}
