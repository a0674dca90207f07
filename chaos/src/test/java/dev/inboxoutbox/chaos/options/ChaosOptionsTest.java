package dev.inboxoutbox.chaos.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.inboxoutbox.chaos.ChaosCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Settings that would make a chaos run meaningless or hang are refused before anything starts. */
class ChaosOptionsTest {

  @Test
  void theDefaultShapeOfARunIsAccepted() {
    ChaosOptions options = options(2, 2, 20, Duration.ofMillis(1500), Duration.ofMillis(3500), 0.1);
    assertThat(options.minKills()).isEqualTo(20);
  }

  @Test
  void killsAreRefusedWhenEveryServiceHasOnlyOneInstance() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> options(1, 1, 20, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.1))
        .withMessageContaining("the last live instance is never killed");
  }

  @Test
  void oneInstanceEachIsFineWithoutKills() {
    assertThat(options(1, 1, 0, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.1).minKills())
        .isZero();
  }

  @Test
  void aKillIntervalWhoseMinimumExceedsItsMaximumIsRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> options(2, 2, 20, Duration.ofSeconds(5), Duration.ofSeconds(2), 0.1))
        .withMessageContaining("kill-every-min PT5S is longer than kill-every-max PT2S");
  }

  @Test
  void aShareAboveOneIsRefused() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> options(2, 2, 20, Duration.ofSeconds(1), Duration.ofSeconds(2), 1.5))
        .withMessageContaining("retry-share must be between 0 and 1, was 1.5");
  }

  @Test
  void theCommandLineReportsARefusedSettingAsAUsageErrorWithItsReason() {
    Result result = chaos("--order-instances", "1", "--payment-instances", "1");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("the last live instance is never killed");
  }

  @Test
  void aDurationWithoutAUnitIsAUsageErrorNamingTheAcceptedForms() {
    Result result = chaos("--kill-every-min", "5");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("not a duration: '5' (use 500ms, 2s, 3m, 1h, 7d)");
  }

  @Test
  void anOrderCountOfZeroIsAUsageErrorPointingAtTheWindow() {
    Result result = chaos("--orders", "0");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err)
        .contains("orders must be positive, was 0; without --orders the run is time-boxed");
  }

  @Test
  void aWindowOfZeroIsAUsageError() {
    Result result = chaos("--duration", "0s");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err).contains("duration must be positive");
  }

  /** A run without faults refuses what would choose one, and the other profiles. */
  @Test
  void aRunWithoutFaultsRefusesAFaultOrAnotherProfile() {
    Result withFaults = chaos("--no-faults", "--faults", "process-kill");
    assertThat(withFaults.exitCode).isEqualTo(2);
    assertThat(withFaults.err).contains("--no-faults injects no fault: --faults has no place");
    Result withNetworkFaults = chaos("--no-faults", "--network-faults", "latency");
    assertThat(withNetworkFaults.exitCode).isEqualTo(2);
    assertThat(withNetworkFaults.err).contains("--network-faults has no place");
    Result quick = chaos("--no-faults", "--quick");
    assertThat(quick.exitCode).isEqualTo(2);
    assertThat(quick.err).contains("--quick, --long and --no-faults are profiles: choose one");
  }

  /** Both arms of the price do the same work: nothing the baseline would apply twice. */
  @Test
  void theInboxPriceRefusesRepeatsControlsAndOtherProfiles() {
    for (String share :
        new String[] {
          "--retry-share", "--conflict-share", "--webhook-duplicate-share", "--cancel-share"
        }) {
      Result repeats = chaos("--inbox-price", share, "0.1");
      assertThat(repeats.exitCode()).as(share).isEqualTo(2);
      assertThat(repeats.err()).as(share).contains(share + " must be 0");
    }
    assertThat(chaos("--inbox-price", "--no-dedup").err()).contains("no negative control");
    assertThat(chaos("--inbox-price", "--quick").err()).contains("are profiles: choose one");
    assertThat(chaos("--inbox-price", "--faults", "process-kill").err())
        .contains("--faults has no place");
    assertThat(chaos("--inbox-price", "--repeat", "0").err()).contains("at least 1");
    assertThat(chaos("--repeat", "2").err()).contains("pairs of runs of --inbox-price");
  }

  /** The last victims serve again before the window ends, however long the window. */
  @Test
  void processFaultsStopAnEighthOfTheWindowBeforeItsEndAndAtMostFifteenSeconds() {
    assertThat(windowed(Duration.ofSeconds(120)).processFaultPhase())
        .isEqualTo(Duration.ofSeconds(105));
    assertThat(windowed(Duration.ofSeconds(40)).processFaultPhase())
        .isEqualTo(Duration.ofSeconds(35));
    assertThat(windowed(Duration.ofMinutes(10)).processFaultPhase())
        .isEqualTo(Duration.ofSeconds(585));
  }

  @Test
  void otherFaultsStopATwelfthOfTheWindowBeforeItsEndAndAtMostTenSeconds() {
    assertThat(windowed(Duration.ofSeconds(120)).faultPhase()).isEqualTo(Duration.ofSeconds(110));
    assertThat(windowed(Duration.ofSeconds(36)).faultPhase()).isEqualTo(Duration.ofSeconds(33));
    assertThat(windowed(Duration.ofMinutes(10)).faultPhase()).isEqualTo(Duration.ofSeconds(590));
  }

  private record Result(int exitCode, String err) {}

  private static Result chaos(String... args) {
    StringWriter err = new StringWriter();
    CommandLine commandLine = new CommandLine(new ChaosCommand());
    commandLine.setErr(new PrintWriter(err, true));
    commandLine.setOut(new PrintWriter(new StringWriter(), true));
    return new Result(commandLine.execute(args), err.toString());
  }

  private static ChaosOptions windowed(Duration window) {
    return options(0, window, 2, 2, 20, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.1);
  }

  private static ChaosOptions options(
      int orderInstances,
      int paymentInstances,
      int minKills,
      Duration killMin,
      Duration killMax,
      double retryShare) {
    return options(
        100,
        Duration.ofSeconds(120),
        orderInstances,
        paymentInstances,
        minKills,
        killMin,
        killMax,
        retryShare);
  }

  private static ChaosOptions options(
      int orders,
      Duration window,
      int orderInstances,
      int paymentInstances,
      int minKills,
      Duration killMin,
      Duration killMax,
      double retryShare) {
    return new ChaosOptions(
        1,
        orders,
        window,
        50,
        orderInstances,
        paymentInstances,
        killMin,
        killMax,
        minKills,
        Duration.ofSeconds(1),
        0.0,
        NegativeControl.NONE,
        retryShare,
        0.02,
        0.01,
        0.05,
        0.3,
        Duration.ofSeconds(60),
        Path.of("."),
        Path.of("iox-reports"));
  }
}
