package dev.inboxoutbox.chaos.fleet;

/**
 * One entry of the fleet's kill log: a process killed by the run, halted at a crash point, or
 * exited during an infrastructure outage.
 *
 * @param atMillis when, in epoch milliseconds as the fleet records it, or since an origin after
 *     {@link #relativeTo(long)}
 * @param kind {@code random}, {@code relay-leader}, {@code crash-point} or {@code
 *     exit-during-outage}
 * @param process the instance, such as {@code order-consumer-1}
 * @param serving whether the instance served (health UP) with partitions assigned to its consumers,
 *     or halted at a crash point (inside a handler or the relay), rather than still starting
 * @param duringInfrastructureFault whether an infrastructure fault lasted (or had just ended)
 */
public record Kill(
    long atMillis,
    String kind,
    String process,
    boolean serving,
    boolean duringInfrastructureFault) {

  /** The kind of a process that exited on its own while its database or broker was down. */
  public static final String EXIT_DURING_OUTAGE = "exit-during-outage";

  /**
   * Whether the process exited on its own during an outage: the fleet counts it apart from the
   * kills ({@code exitsDuringOutage}), and so does every report.
   */
  public boolean outageExit() {
    return EXIT_DURING_OUTAGE.equals(kind);
  }

  /**
   * The same kill timed in milliseconds since {@code originEpochMillis}: the fleet reads the wall
   * clock, the report counts from the start of the load.
   */
  public Kill relativeTo(long originEpochMillis) {
    return new Kill(
        atMillis - originEpochMillis, kind, process, serving, duringInfrastructureFault);
  }
}
