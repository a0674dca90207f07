package dev.inboxoutbox.test;

/**
 * The consumer's process dying at a crash point. An {@link Error}, not an exception, because
 * nothing on its way may treat it as a failing record: the batch processor lets errors pass without
 * dead-lettering or retrying record by record, the transaction runners (plain JDBC and Spring's
 * {@code TransactionTemplate}) roll back on it, and the poll loop ends without committing an
 * offset, as a process that died would.
 */
final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;

  SimulatedCrash(String where) {
    super("iox test kit: simulated crash " + where, null, false, false);
  }
}
