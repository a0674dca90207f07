package dev.inboxoutbox.chaos.options;

/**
 * A run with one guarantee broken on purpose, to show that the verifier notices: such a run must
 * fail. {@link #NONE} is a real run.
 */
public enum NegativeControl {
  NONE("none"),
  /** Every delivery looks new to the inbox, so repeats apply again. */
  NO_DEDUP("inbox off: every delivery gets a key of its own"),
  /** The order service applies each partition's records of a batch last first. */
  REORDER("consumer reorders: each batch applied last record first"),
  /** payment-consumer loses every refund request, so cancelled orders keep captured money. */
  DROP_REFUNDS("refunds dropped: every RefundRequested is lost before the refunder");

  private final String description;

  NegativeControl(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
