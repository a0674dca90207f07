package dev.inboxoutbox.provider;

/** How a charge ended; decided once, when the charge is created. */
public enum ChargeStatus {
  SUCCEEDED("succeeded"),
  FAILED("failed");

  private final String wireName;

  ChargeStatus(String wireName) {
    this.wireName = wireName;
  }

  /** As it appears in responses and the ledger: {@code succeeded}, {@code failed}. */
  public String wireName() {
    return wireName;
  }

  /** The webhook event type announcing it: {@code charge.succeeded}, {@code charge.failed}. */
  public String eventType() {
    return "charge." + wireName;
  }
}
