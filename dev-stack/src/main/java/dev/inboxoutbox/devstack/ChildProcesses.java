package dev.inboxoutbox.devstack;

/**
 * Ctrl-C or a SIGTERM ends the {@code iox} JVM without closing what its command started: a chaos
 * run's service instances and broker processes would go on running, holding ports, CPU and the next
 * run's Kafka topics.
 */
public final class ChildProcesses {

  private ChildProcesses() {}

  /** Kills every process this JVM started, and theirs, when the JVM exits. */
  public static void stopOnExit() {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly),
                "iox-stop-child-processes"));
  }
}
