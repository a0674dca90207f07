package dev.inboxoutbox.orders;

import dev.inboxoutbox.inbox.Outcome;
import tools.jackson.databind.json.JsonMapper;

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

  /** The rejection as the key's outcome, with the HTTP status a repeat is answered with. */
  Outcome outcome(JsonMapper json) {
    return Outcome.rejected(status, json.writeValueAsString(new ErrorBody(code, getMessage())));
  }
}
