package dev.inboxoutbox.chaos.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inboxoutbox.chaos.options.ChaosOptions;
import dev.inboxoutbox.chaos.options.NegativeControl;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a run tells the chaos extension in each service: only {@code iox.chaos.*}. */
class ServiceLaunchTest {

  private static final Path ARMED = Path.of("/tmp/run/crash-points-armed");

  @Test
  void crashPointsAreArmedByTheRunsFile() {
    Map<String, String> properties =
        ServiceLaunch.chaosProperties(options(0.002, NegativeControl.NONE), ARMED);

    assertThat(properties)
        .containsEntry("iox.chaos.arming-file", ARMED.toString())
        .containsEntry("iox.chaos.crash-points.MID_HANDLER", "0.002")
        .containsEntry("iox.chaos.crash-points.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT", "0.002")
        .containsEntry("iox.chaos.crash-points.RELAY_AFTER_PUBLISH", "0.002")
        .doesNotContainKey("iox.chaos.dedup-off");
  }

  @Test
  void theNegativeControlAsksTheExtensionForANewKeyPerDelivery() {
    Map<String, String> properties =
        ServiceLaunch.chaosProperties(options(0, NegativeControl.NO_DEDUP), ARMED);

    assertThat(properties).containsExactly(Map.entry("iox.chaos.dedup-off", "true"));
  }

  @Test
  void theInboxPriceBaselineAsksTheExtensionForAnInboxThatIsOff() {
    Map<String, String> properties =
        ServiceLaunch.chaosProperties(options(0, NegativeControl.INBOX_OFF), ARMED);

    assertThat(properties).containsExactly(Map.entry("iox.chaos.inbox-off", "true"));
  }

  @Test
  void theReorderingControlAsksTheExtensionToReverseBatches() {
    Map<String, String> properties =
        ServiceLaunch.chaosProperties(options(0, NegativeControl.REORDER), ARMED);

    assertThat(properties).containsExactly(Map.entry("iox.chaos.reorder-batches", "true"));
  }

  @Test
  void theRefundControlAsksTheExtensionToDropRefundRequests() {
    Map<String, String> properties =
        ServiceLaunch.chaosProperties(options(0, NegativeControl.DROP_REFUNDS), ARMED);

    assertThat(properties).containsExactly(Map.entry("iox.chaos.drop-refund-requests", "true"));
  }

  @Test
  void noServiceSettingTouchesDeduplication() {
    assertThat(
            ServiceLaunch.chaosProperties(options(0.002, NegativeControl.NO_DEDUP), ARMED).keySet())
        .allMatch(name -> name.startsWith("iox.chaos."));
  }

  private static ChaosOptions options(double crashPoints, NegativeControl control) {
    return new ChaosOptions(
        1,
        600,
        Duration.ofSeconds(120),
        100,
        2,
        1,
        Duration.ofMillis(1500),
        Duration.ofMillis(3000),
        4,
        Duration.ofMillis(500),
        crashPoints,
        control,
        0.3,
        0.03,
        0.02,
        0.05,
        0.3,
        Duration.ofSeconds(120),
        Path.of("."),
        Path.of("iox-reports"));
  }
}
