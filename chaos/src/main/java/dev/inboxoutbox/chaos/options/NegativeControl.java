package dev.inboxoutbox.chaos.options;

/**
 * A run with one guarantee broken on purpose, to show that the verifier notices: such a run must
 * fail. {@link #NONE} is a real run; {@link #INBOX_OFF} is the baseline of {@code --inbox-price},
 * run for its throughput rather than its verdict.
 */
public enum NegativeControl {
  NONE("none"),
  /** Every delivery looks new to the inbox, so repeats apply again. */
  NO_DEDUP("no deduplication: every delivery gets a key of its own"),
  /** The services' inboxes claim nothing and store nothing, so repeats apply again. */
  INBOX_OFF("inbox off: the services claim no key and store no outcome"),
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
