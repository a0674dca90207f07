package dev.inboxoutbox.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PaymentProviderSimulatorMainTest {

  @Test
  void optionsWinOverEnvironmentWhichWinsOverDefaults() {
    Map<String, String> settings =
        PaymentProviderSimulatorMain.settings(
            new String[] {"--port=9000", "--webhook-url=http://payments:8082/webhooks/provider"},
            Map.of(
                "PROVIDER_PORT",
                "8500",
                "PROVIDER_WEBHOOK_SECRET",
                "whsec_env",
                "PROVIDER_DUPLICATE_SHARE",
                "0.5"));
    assertThat(settings)
        .containsEntry("port", "9000")
        .containsEntry("webhook-secret", "whsec_env")
        .containsEntry("duplicate-share", "0.5")
        .containsEntry("webhook-url", "http://payments:8082/webhooks/provider")
        .containsEntry("failure-share", "0.05")
        .containsEntry("seed", "42");
  }

  @Test
  void theSettingsBuildARunnableSimulator() {
    Map<String, String> settings =
        PaymentProviderSimulatorMain.settings(
            new String[] {"--port=0", "--failure-share=0"}, Map.of());
    try (PaymentProviderSimulator simulator =
        PaymentProviderSimulatorMain.build(settings).start()) {
      assertThat(simulator.port()).isPositive();
    }
  }

  @Test
  void unknownOptionsAndBadValuesAreRefused() {
    assertThatThrownBy(
            () -> PaymentProviderSimulatorMain.settings(new String[] {"--prot=1"}, Map.of()))
        .hasMessageContaining("unknown option --prot");
    assertThatThrownBy(
            () -> PaymentProviderSimulatorMain.settings(new String[] {"port=1"}, Map.of()))
        .hasMessageContaining("--name=value");
    Map<String, String> badShare =
        PaymentProviderSimulatorMain.settings(new String[] {"--duplicate-share=2"}, Map.of());
    assertThatThrownBy(() -> PaymentProviderSimulatorMain.build(badShare))
        .hasMessageContaining("duplicateShare must be between 0 and 1");
    Map<String, String> notANumber =
        PaymentProviderSimulatorMain.settings(new String[] {"--seed=x"}, Map.of());
    assertThatThrownBy(() -> PaymentProviderSimulatorMain.build(notANumber))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
