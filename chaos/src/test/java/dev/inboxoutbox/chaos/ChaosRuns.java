package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fault.FaultOptions;
import dev.inboxoutbox.chaos.fault.NetworkChaos;
import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import dev.inboxoutbox.chaos.verify.ProofFloors;
import dev.inboxoutbox.chaos.verify.Verdict;
import dev.inboxoutbox.devstack.StopRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Chaos runs as the integration tests start them: in this JVM, printed to the build log. */
final class ChaosRuns {

  private static final Path REPO =
      Path.of(System.getenv().getOrDefault("IOX_REPO_ROOT", "..")).toAbsolutePath().normalize();

  private ChaosRuns() {}

  static ChaosOptions options(NegativeControl control, long seed, Duration quiescence)
      throws Exception {
    return options(control, seed, quiescence, 600, 100);
  }

  static ChaosOptions options(
      NegativeControl control, long seed, Duration quiescence, int orders, int ratePerSecond)
      throws Exception {
    return options(control, seed, quiescence, orders, ratePerSecond, 0.05);
  }

  static ChaosOptions options(
      NegativeControl control,
      long seed,
      Duration quiescence,
      int orders,
      int ratePerSecond,
      double cancelShare)
      throws Exception {
    return new ChaosOptions(
        seed,
        orders,
        Duration.ofSeconds(120),
        ratePerSecond,
        2,
        1,
        Duration.ofMillis(1500),
        Duration.ofMillis(3000),
        4,
        Duration.ofMillis(500),
        0.002,
        control,
        0.3,
        0.03,
        0.02,
        cancelShare,
        0.3,
        quiescence,
        REPO,
        Files.createTempDirectory("iox-reports"));
  }

  /** The same options, time-boxed: a window of {@code seconds} instead of a count of orders. */
  static ChaosOptions timeBoxed(ChaosOptions fixed, int seconds) {
    return varied(
        fixed,
        0,
        Duration.ofSeconds(seconds),
        150,
        fixed.orderInstances(),
        fixed.paymentInstances(),
        fixed.minKills(),
        fixed.crashPointProbability());
  }

  /**
   * The same options for a control whose defect needs no process fault to show: one instance per
   * service, no kill and no crash point. Client retries double orders without the inbox, a batch
   * applied backwards puts a cancel before its order, lost refunds leave cancelled orders paid, and
   * an unsafe failover loses what the primary alone committed, all without a restart.
   */
  static ChaosOptions withoutProcessFaults(ChaosOptions fixed) {
    return varied(fixed, fixed.orders(), fixed.window(), fixed.ratePerSecond(), 1, 1, 0, 0.0);
  }

  /** {@code fixed} with its load, its fleet and its process faults replaced. */
  private static ChaosOptions varied(
      ChaosOptions fixed,
      int orders,
      Duration window,
      int ratePerSecond,
      int orderInstances,
      int paymentInstances,
      int minKills,
      double crashPointProbability) {
    return new ChaosOptions(
        fixed.seed(),
        orders,
        window,
        ratePerSecond,
        orderInstances,
        paymentInstances,
        fixed.killIntervalMin(),
        fixed.killIntervalMax(),
        minKills,
        fixed.restartDelay(),
        crashPointProbability,
        fixed.negativeControl(),
        fixed.retryShare(),
        fixed.conflictShare(),
        fixed.malformedShare(),
        fixed.cancelShare(),
        fixed.webhookDuplicateShare(),
        fixed.quiescenceTimeout(),
        fixed.repoRoot(),
        fixed.reportDirectory());
  }

  /** No proof floor claimed: a run's verdict is then the invariants'. */
  private static final ProofFloors NO_FLOORS = ProofFloors.none("a focused test run");

  static final NetworkChaos.Settings NO_NETWORK_FAULTS =
      new NetworkChaos.Settings(
          java.util.Set.of(),
          Duration.ofSeconds(8),
          Duration.ofSeconds(15),
          Duration.ofMillis(200),
          Duration.ofSeconds(4));

  record Run(Verdict verdict, String output) {}

  /** A run that claims no proof floor: its verdict is the invariants'. */
  static Run run(ChaosOptions options, FaultOptions faults) throws Exception {
    return run(options, faults, NO_FLOORS);
  }

  /**
   * A run of {@code options} without any fault: no process fault ({@link #withoutProcessFaults}),
   * no infrastructure fault, no network fault. For a control whose defect shows on its own.
   */
  static Run runWithoutFaults(ChaosOptions options) throws Exception {
    return run(withoutProcessFaults(options), FaultOptions.none(), NO_NETWORK_FAULTS, NO_FLOORS);
  }

  static Run run(ChaosOptions options, FaultOptions faults, ProofFloors floors) throws Exception {
    return run(options, faults, NetworkChaos.Settings.defaults(), floors);
  }

  private static Run run(
      ChaosOptions options, FaultOptions faults, NetworkChaos.Settings network, ProofFloors floors)
      throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Verdict verdict =
        new ChaosRun(
                options,
                faults,
                network,
                floors,
                StopRequest.never(),
                new PrintStream(new TeeStream(out, System.out), true, StandardCharsets.UTF_8))
            .run()
            .verdict();
    return new Run(verdict, buffer.toString(StandardCharsets.UTF_8));
  }

  /** Shows the run's progress in the build log while the test keeps a copy to assert on. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream first;
    private final java.io.OutputStream second;

    TeeStream(java.io.OutputStream first, java.io.OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws java.io.IOException {
      first.write(b);
      second.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws java.io.IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }
  }
}
