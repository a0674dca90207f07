package dev.inboxoutbox.orders;

/** A business rule refused the command; stored as the key's outcome and replayed to repeats. */
final class OrderRejected extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;

  OrderRejected(int status, String code, String message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }
}
