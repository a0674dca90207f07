package dev.inboxoutbox.payment;

/**
 * The provider refused a charge or a refund for good (a 4xx other than 409/429): the same request
 * would be refused again, so retrying is pointless and the message goes to a person.
 */
public final class ProviderRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  public ProviderRefusedException(int status, String message) {
    super(message);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
